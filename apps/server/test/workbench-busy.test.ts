import type { Visitor } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, visitor } from './chat-harness.js';
import { startTestServer, type TestServer } from './harness.js';
import type { TestSocket } from './sockets.js';

// The workbench's list on a busy site: thousands of visitors only browsing must not push a conversation
// going on off the list, however long ago its visitor was last seen.

let server: TestServer;
let admin: string;
const sockets: TestSocket[] = [];

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  sockets.push(await agentSocket(server, admin));
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await server.close();
});

describe('the workbench list', () => {
  it('keeps every conversation going on, with a thousand visitors browsing seen since', async () => {
    const talking = await visitor(server);
    sockets.push(talking.socket);
    await talking.say('我的订单还没到');
    const row = await server.storage.db.selectFrom('visitors').selectAll().where('public_id', '=', talking.id).executeTakeFirstOrThrow();
    // A thousand and one visitors browsing (online, no conversation), each seen after the one talking.
    const later = Date.parse(row.last_seen_at) + 60_000;
    const { id: _id, ...columns } = row;
    const browsing = Array.from({ length: 1001 }, (_, i) => ({
      ...columns,
      public_id: `browsing${String(i).padStart(12, '0')}`,
      token_hash: `browsing-${i}`,
      user_id: null,
      name: '',
      state: 'end',
      service_id: null,
      online: 1,
      last_seq: 0,
      last_seen_at: new Date(later + i).toISOString(),
    }));
    for (let at = 0; at < browsing.length; at += 50)
      await server.storage.db
        .insertInto('visitors')
        .values(browsing.slice(at, at + 50))
        .execute();

    const list = await server.get<{ list: Visitor[] }>('/api/talk/userList', { token: admin });
    expect(list.status).toBe(200);
    const tokens = list.body.data.list.map((item) => item.YQToken);
    expect(tokens).toContain(talking.id);
    // The browsing ones are listed too, the newest thousand of them.
    expect(tokens.filter((token) => token.startsWith('browsing'))).toHaveLength(1000);
    expect(tokens).not.toContain(browsing[0]?.public_id);
  });
});
