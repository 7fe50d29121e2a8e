import { randomBytes } from 'node:crypto';
import type { Message } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, onlyId, visitor } from './chat-harness.js';
import { backends, startTestServer, type TestServer } from './harness.js';
import { dropSchema } from './processes.js';
import { TestSocket } from './sockets.js';

// Two processes of one deployment need a shared database server and Redis: this runs where the CI
// variables provide them (SQLite and the in-process bus are single-process by design).
describe.runIf(backends.postgres && backends.redis)('two server processes sharing PostgreSQL and Redis', () => {
  const schema = `so_${randomBytes(6).toString('hex')}`;
  // A short grace keeps the presence case from waiting the default 4 s; the rule is the same.
  const PRESENCE_GRACE_MS = 1000;
  // One deployment's processes share the sealing key (SECRET_KEY), as they share the database.
  const shared = {
    DATABASE_SCHEMA: schema,
    REDIS_PREFIX: `parley-${schema}`,
    PRESENCE_GRACE_MS: String(PRESENCE_GRACE_MS),
    SECRET_KEY: randomBytes(24).toString('hex'),
  };
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    a = await startTestServer(shared);
    b = await startTestServer(shared);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await dropSchema(schema);
  });

  it('routes a visitor on one process to an agent connected to the other, both ways, and revokes across them', async () => {
    const token = await a.login();
    const agent = await agentSocket(a, token);
    const v = await visitor(b);
    const sent = await v.say('hello from process b');
    const received = await agent.until(() => framesOf(agent, '8006').find((frame) => (frame.data as Message).onlyID === sent.onlyID));
    expect(received.data).toEqual(sent);
    expect(sent.serviceID).toBeTruthy();

    const reply = await b.post<Message>('/api/talk/send', { YQToken: v.id, msg: 'answer through process b', onlyID: onlyId() }, { token });
    expect(reply.status).toBe(200);
    await v.socket.until(() => framesOf(v.socket, '8005').find((frame) => (frame.data as Message).msg === 'answer through process b'));

    await b.get('/api/login/logOut', { token });
    await agent.frame('8000');
    expect(await agent.closed()).toBe(4403);
    v.socket.close();
  });

  it('keeps a visitor with a tab on each process online until the last tab closes', async () => {
    const token = await a.login();
    const agent = await agentSocket(a, token);
    const v = await visitor(a);
    const witness = await visitor(a);
    const about = (code: string, who = v.id) =>
      framesOf(agent, code).filter((frame) => (frame.data as { YQToken: string }).YQToken === who);
    await agent.until(() => about('8002').length > 0 && about('8002', witness.id).length > 0);
    const otherTab = await TestSocket.open(`${b.url.replace('http', 'ws')}/ws/visitor?YQToken=${v.credential}`);

    // Process a loses its tab; past the grace period it must not report the visitor gone while
    // process b still holds the other one. The witness leaves process a after that tab closed: once
    // its 8003 is in, v's grace there has run out too.
    v.socket.close();
    await v.socket.closed();
    witness.socket.close();
    await agent.until(() => about('8003', witness.id).length > 0, PRESENCE_GRACE_MS + 5000);
    expect(about('8003')).toHaveLength(0);

    otherTab.close();
    await agent.until(() => about('8003').length > 0, PRESENCE_GRACE_MS + 5000);
    agent.close();
  }, 30_000);
});
