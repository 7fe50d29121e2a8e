import type { HomeOverview, Visitor } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, visitor } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';
import { waitFor } from './waiting.js';

let server: TestServer;
let admin: string;
/** While set, the server's clock stands at this moment. */
let frozen: number | undefined;

const LIVE_FIGURES = ['conversationsToday', 'day', 'inConversation', 'unreadLetters', 'visitorsOnline', 'visitorsToday', 'waiting'];

beforeAll(async () => {
  // A short presence grace: a visitor who closes its socket is counted gone without the default 4 s wait.
  server = await startTestServer({ SITE_TIMEZONE: 'Pacific/Honolulu', PRESENCE_GRACE_MS: '100' }, { now: () => frozen ?? Date.now() });
  admin = await server.login();
});
afterAll(() => server.close());

async function overview(token: string): Promise<HomeOverview> {
  const response = await server.get<HomeOverview>('/api/home/overview', { token });
  expect(response.status).toBe(200);
  return response.body.data;
}

async function withRole(username: string, permissions: string[]): Promise<string> {
  const role = await server.post<{ id: number }>('/api/role/doEdit', { name: `${username}-role`, permissions }, { token: admin });
  expect(role.status).toBe(200);
  const created = await server.post(
    '/api/service/doEdit',
    { username, nickname: username, password: 'agent-pass-1', roleId: role.body.data.id },
    { token: admin },
  );
  expect(created.status).toBe(200);
  return server.login(username, 'agent-pass-1');
}

const logLogin = (created_at: string, result: 'success' | 'failure') =>
  server.storage.db
    .insertInto('login_log')
    .values({ username: 'someone', agent_id: null, ip: '10.0.0.1', user_agent: 'test', result, reason: '', counted: 0, created_at })
    .execute();

describe('GET /api/home/overview', () => {
  it('answers 401 without a token', async () => {
    const response = await server.get('/api/home/overview');
    expect(response.status).toBe(401);
    expect(response.body.data).toBeNull();
  });

  it('gives a plain agent the live figures only: no agents, no sign-ins', async () => {
    const { token } = await createAgent(server, admin, { username: 'home-plain' });
    const figures = await overview(token ?? '');
    expect(Object.keys(figures).sort()).toEqual(LIVE_FIGURES);
    for (const key of LIVE_FIGURES.filter((name) => name !== 'day')) expect(figures[key as keyof HomeOverview]).toEqual(expect.any(Number));
  });

  it('adds the sign-in figures for the login-log permission, and the agent figures for the agents permission', async () => {
    const records = await withRole('home-records', ['seePermissions:seeLoginRecord']);
    expect(Object.keys(await overview(records)).sort()).toEqual([...LIVE_FIGURES, 'signInFailuresToday', 'signInsToday'].sort());
    const agents = await withRole('home-agents', ['setPermissions:service']);
    expect(Object.keys(await overview(agents)).sort()).toEqual([...LIVE_FIGURES, 'agentsOnline', 'agentsTotal'].sort());
    expect(Object.keys(await overview(admin)).sort()).toEqual(
      [...LIVE_FIGURES, 'agentsOnline', 'agentsTotal', 'signInFailuresToday', 'signInsToday'].sort(),
    );
  });

  it('counts enabled agents, and those online with a console open (not hidden, not disabled)', async () => {
    await createAgent(server, admin, { username: 'home-disabled', disabled: true });
    const before = await overview(admin);
    const enabled = await server.storage.db.selectFrom('agents').select('id').where('disabled', '=', 0).execute();
    expect(before.agentsTotal).toBe(enabled.length);
    expect(before.agentsOnline).toBe(0);

    const socket = await agentSocket(server, admin);
    await waitFor(async () => (await overview(admin)).agentsOnline === 1, 5000, 'the administrator online');
    await server.post('/api/index/state', { state: '1' }, { token: admin });
    expect((await overview(admin)).agentsOnline).toBe(0);
    await server.post('/api/index/state', { state: '0' }, { token: admin });
    expect((await overview(admin)).agentsOnline).toBe(1);
    socket.close();
    await waitFor(async () => (await overview(admin)).agentsOnline === 0, 5000, 'the administrator offline');
  });

  it('follows visitors: online, waiting, in conversation, today, and their unread letters', async () => {
    const start = await overview(admin);
    const guest = await visitor(server);
    await waitFor(async () => (await overview(admin)).visitorsOnline === start.visitorsOnline + 1, 5000, 'the visitor online');
    expect((await overview(admin)).visitorsToday).toBe(start.visitorsToday + 1);

    // Nobody's console is open: the first message opens a conversation that waits in the queue.
    await guest.say('hello');
    const queued = await overview(admin);
    expect(queued).toMatchObject({
      waiting: start.waiting + 1,
      inConversation: start.inConversation,
      conversationsToday: start.conversationsToday + 1,
    });

    const accepted = await server.post<Visitor>('/api/talk/accept', { YQToken: guest.id }, { token: admin });
    expect(accepted.status).toBe(200);
    expect(await overview(admin)).toMatchObject({ waiting: start.waiting, inConversation: start.inConversation + 1 });

    const letter = await server.post('/api/visitor/letter', { name: 'Ann', email: 'ann@example.com', content: 'Call me back' });
    expect(letter.status).toBe(200);
    expect((await overview(admin)).unreadLetters).toBe(start.unreadLetters + 1);

    guest.socket.close();
    await waitFor(async () => (await overview(admin)).visitorsOnline === start.visitorsOnline, 10_000, 'the visitor gone');
    // Gone, but seen today.
    expect((await overview(admin)).visitorsToday).toBe(start.visitorsToday + 1);
  });

  it("counts today's sign-ins on the site's day, not the server's or UTC's", async () => {
    // 23:45 on 21 November 2031 in Honolulu, already the 22nd in UTC.
    frozen = Date.parse('2031-11-22T09:45:00Z');
    try {
      await logLogin('2031-11-21T09:59:59.999Z', 'success'); // 23:59 on the 20th, local
      await logLogin('2031-11-21T10:00:00.000Z', 'failure'); // midnight starting the 21st
      await logLogin('2031-11-22T09:30:00.000Z', 'success'); // 23:30 on the 21st
      await logLogin('2031-11-22T09:44:00.000Z', 'success');
      await logLogin('2031-11-22T10:00:00.000Z', 'failure'); // midnight starting the 22nd
      const figures = await overview(admin);
      expect(figures).toMatchObject({ day: '2031-11-21', signInsToday: 2, signInFailuresToday: 1 });
    } finally {
      frozen = undefined;
    }
  });
});
