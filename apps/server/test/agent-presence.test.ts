import type { Agent, AgentPresence, ListData } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestServer, type TestServer } from './harness.js';
import { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';

let server: TestServer;
let admin: string;
const wsUrl = (token: string) => `${server.url.replace('http', 'ws')}/ws/agent?token=${encodeURIComponent(token)}`;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

async function presenceOf(username: string): Promise<AgentPresence | undefined> {
  const response = await server.get<ListData<Agent>>(`/api/service/getList?username=${username}`, { token: admin });
  expect(response.status).toBe(200);
  return response.body.data.list.find((agent) => agent.username === username)?.presence;
}

const becomes = (username: string, presence: AgentPresence) =>
  waitFor(async () => (await presenceOf(username)) === presence, 5000, `${username} ${presence}`);

describe('GET /api/service/getList presence', () => {
  it('answers 401 without a token and 403 without the agents permission', async () => {
    expect((await server.get('/api/service/getList')).status).toBe(401);
    const { token } = await createAgent(server, admin, { username: 'presence-plain' });
    expect((await server.get('/api/service/getList', { token })).status).toBe(403);
  });

  it('is offline without a console, online with one, hidden when the agent hides, offline once it closes', async () => {
    const { token } = await createAgent(server, admin, { username: 'presence-agent' });
    expect(await presenceOf('presence-agent')).toBe('offline');

    const socket = await TestSocket.open(wsUrl(token ?? ''));
    await socket.frame('0000');
    await becomes('presence-agent', 'online');

    await server.post('/api/index/state', { state: '1' }, { token });
    await becomes('presence-agent', 'hidden');

    socket.close();
    await becomes('presence-agent', 'offline');

    // The chosen availability outlives the socket: the next console shows the agent hidden again.
    const again = await TestSocket.open(wsUrl(token ?? ''));
    await again.frame('0000');
    await becomes('presence-agent', 'hidden');
    await server.post('/api/index/state', { state: '0' }, { token });
    await becomes('presence-agent', 'online');
    again.close();
    await becomes('presence-agent', 'offline');
  });

  it('keeps an agent online while one of two consoles is still open', async () => {
    const { token } = await createAgent(server, admin, { username: 'presence-twice' });
    const first = await TestSocket.open(wsUrl(token ?? ''));
    const second = await TestSocket.open(wsUrl(token ?? ''));
    await first.frame('0000');
    await second.frame('0000');
    await becomes('presence-twice', 'online');
    first.close();
    await first.closed();
    expect(await presenceOf('presence-twice')).toBe('online');
    second.close();
    await becomes('presence-twice', 'offline');
  });

  it('does not count a console that is not signed in', async () => {
    const socket = await TestSocket.open(wsUrl('not-a-token'));
    expect(await socket.closed()).toBe(4401);
    const { list } = (await server.get<ListData<Agent>>('/api/service/getList?pageSize=100', { token: admin })).body.data;
    expect(list.filter((agent) => agent.username.startsWith('presence-')).map((agent) => agent.presence)).toEqual([
      'offline',
      'offline',
      'offline',
    ]);
  });
});
