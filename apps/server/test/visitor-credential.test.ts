import { createHash } from 'node:crypto';
import type { Message, Visitor } from '@parley/protocol';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, onlyId, visitor } from './chat-harness.js';
import { migrateTo, startTestServer, type TestServer } from './harness.js';
import { TestSocket } from './sockets.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function allVisitorRows(server: TestServer): Promise<Record<string, unknown>[]> {
  const { rows } = await sql<Record<string, unknown>>`select * from visitors`.execute(server.storage.db);
  return rows;
}

describe("the visitor's credential", () => {
  let server: TestServer;
  let admin: string;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
  });
  afterAll(() => server.close());

  it('is known only to the visitor: agents see a public id, which opens nothing on the visitor API', async () => {
    const agent = await agentSocket(server, admin);
    const v = await visitor(server);

    const text = `hello ${onlyId()}`;
    const said = await v.say(text);
    v.socket.send({ code: '8011', data: { text: 'typing…' } });
    await agent.until(() => framesOf(agent, '8011').length > 0);
    await server.post('/api/visitor/visit', { YQToken: v.credential, url: 'https://shop.example/cart', title: 'Cart' });
    await agent.until(() => framesOf(agent, '8010').find((frame) => (frame.data as { URL: string }).URL === 'https://shop.example/cart'));

    // What an agent is given to name this visitor by.
    const list = await server.get<{ list: Visitor[] }>('/api/talk/userList', { token: admin });
    const seen = list.body.data.list.find((item) => item.lastMessage?.msg === text);
    const agentSide = seen?.YQToken ?? '';

    // Posting as the visitor with what the agent sees.
    const form = new FormData();
    form.append('file', new Blob(['plain words']), 'notes.txt');
    const asVisitor = await Promise.all([
      server.post('/api/visitor/message', { YQToken: agentSide, msg: 'posing as the visitor', onlyID: onlyId() }),
      server.get(`/api/visitor/messages?YQToken=${agentSide}`),
      server.post('/api/visitor/visit', { YQToken: agentSide, url: 'https://evil.example/' }),
      server.post('/api/visitor/rate', { YQToken: agentSide, score: 1 }),
      fetch(`${server.url}/api/visitor/upload?YQToken=${agentSide}`, { method: 'POST', body: form }),
    ]);
    const socket = await TestSocket.open(`${server.url.replace('http', 'ws')}/ws/visitor?YQToken=${agentSide}`);
    const socketOutcome = await socket.until(() => socket.closeCode ?? (socket.frames.length > 0 && 'open'));
    socket.close();
    expect([...asVisitor.map((response) => response.status), socketOutcome]).toEqual([401, 401, 401, 401, 401, 4401]);

    expect(v.id).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    expect(v.credential).toMatch(/^[A-Za-z0-9_-]{22,64}$/);
    expect(v.id).not.toBe(v.credential);
    expect(agentSide).toBe(v.id);
    expect(said.YQToken).toBe(v.id);

    const history = await server.get<{ list: Message[] }>(`/api/talk/messages?YQToken=${agentSide}`, { token: admin });
    const visits = await server.get(`/api/talk/visits?YQToken=${agentSide}`, { token: admin });
    expect([history.status, visits.status]).toEqual([200, 200]);
    const everythingAgentSaw = JSON.stringify([agent.frames, list.body, history.body, visits.body]);
    expect(everythingAgentSaw).toContain(v.id);
    expect(everythingAgentSaw).not.toContain(v.credential);

    // The credential, the other way round, names nobody on the agents' API.
    const asAgent = await Promise.all([
      server.get(`/api/talk/messages?YQToken=${v.credential}`, { token: admin }),
      server.post('/api/talk/send', { YQToken: v.credential, msg: 'x', onlyID: onlyId() }, { token: admin }),
      server.post('/api/talk/end', { YQToken: v.credential }, { token: admin }),
    ]);
    expect(asAgent.map((response) => response.status)).toEqual([404, 404, 404]);

    // The visitor's own calls keep working with the credential, and init names the same visitor again.
    const again = await server.post<{ YQToken: string; id: string; messages: Message[] }>('/api/visitor/init', {
      YQToken: v.credential,
      url: 'https://shop.example/',
    });
    expect(again.body.data).toMatchObject({ YQToken: v.credential, id: v.id });
    expect(again.body.data.messages.find((message) => message.msg === text)?.YQToken).toBe(v.id);
    agent.close();
    v.socket.close();
  });

  it('is stored only as a hash', async () => {
    const v = await visitor(server);
    const rows = await allVisitorRows(server);
    expect(JSON.stringify(rows)).not.toContain(v.credential);
    expect(rows.find((row) => row.public_id === v.id)?.token_hash).toBe(sha256(v.credential));
    v.socket.close();
  });
});

describe('migration 005 on a database of visitors made before it', () => {
  const before = [
    { token: 'OldVisitorCredential-0000001', msg: 'asked before the upgrade' },
    { token: 'OldVisitorCredential-0000002', msg: 'another old question' },
  ];
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(
      {},
      {
        async beforeMigrate(storage) {
          await migrateTo(storage, '004_presence');
          const now = new Date().toISOString();
          for (const old of before) {
            await sql`insert into visitors (token, channel, state, last_seq, umsg, created_at, last_seen_at)
              values (${old.token}, 'web', 'end', 1, 1, ${now}, ${now})`.execute(storage.db);
            await sql`insert into messages (visitor_id, seq, only_id, role, type, msg, nickname, withdrawn, created_at)
              select id, 1, 'old-1', 'user', 'text', ${old.msg}, '', 0, ${now} from visitors where token = ${old.token}`.execute(
              storage.db,
            );
          }
        },
      },
    );
  });
  afterAll(() => server.close());

  it('keeps every visitor usable with its old credential, gives each a public id, and keeps no plaintext', async () => {
    const rows = await allVisitorRows(server);
    expect(rows).toHaveLength(before.length);
    for (const old of before) expect(JSON.stringify(rows)).not.toContain(old.token);
    expect(rows.map((row) => row.token_hash).sort()).toEqual(before.map((old) => sha256(old.token)).sort());
    expect(new Set(rows.map((row) => row.public_id)).size).toBe(before.length);

    const admin = await server.login();
    for (const old of before) {
      const init = await server.post<{ YQToken: string; id: string; messages: Message[] }>('/api/visitor/init', {
        YQToken: old.token,
        url: 'https://shop.example/',
      });
      expect(init.status).toBe(200);
      expect(init.body.data.YQToken).toBe(old.token);
      expect(init.body.data.id).toBe(rows.find((row) => row.token_hash === sha256(old.token))?.public_id);
      expect(init.body.data.messages.map((message) => [message.seq, message.msg, message.YQToken])).toEqual([
        [1, old.msg, init.body.data.id],
      ]);
      const next = await server.post<Message>('/api/visitor/message', { YQToken: old.token, msg: 'after the upgrade', onlyID: onlyId() });
      expect(next.status).toBe(200);
      expect(next.body.data.seq).toBe(2);
      const agentSide = await server.get<{ list: Message[] }>(`/api/talk/messages?YQToken=${init.body.data.id}`, { token: admin });
      expect(agentSide.body.data.list.map((message) => message.msg)).toContain(old.msg);
    }
  });
});
