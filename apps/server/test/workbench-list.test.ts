import { randomBytes } from 'node:crypto';
import type { Message, Visitor } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, onlyId, type TestVisitor, visitor } from './chat-harness.js';
import { backends, createAgent, startTestServer, type TestServer } from './harness.js';
import { dropSchema } from './processes.js';
import type { TestSocket } from './sockets.js';

// A supervisor's workbench lists every conversation, another agent's included: its line (last message,
// umsg/smsg) is kept current by the frames its console gets, so those reach a supervisor who is not
// monitoring the conversation, and never a plain agent to whom it is not listed.

const said = (socket: TestSocket, code: string, msg: string) => framesOf(socket, code).some((frame) => (frame.data as Message).msg === msg);

describe('GET /api/talk/userList and its frames for another agent’s conversation', () => {
  let server: TestServer;
  let admin: string;
  let alice: string;
  let bob: string;
  let v: TestVisitor;
  let sockets: TestSocket[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.login();
    // The administrator (a supervisor) is hidden and bob not connected yet: the visitor goes to alice.
    expect((await server.post('/api/index/state', { state: '1' }, { token: admin })).status).toBe(200);
    alice = (await createAgent(server, admin, { username: 'alice' })).token ?? '';
    bob = (await createAgent(server, admin, { username: 'bob' })).token ?? '';
    const aliceSocket = await agentSocket(server, alice);
    sockets.push(aliceSocket);
    v = await visitor(server);
    sockets.push(v.socket);
    await v.say('before the supervisor looks');
    await aliceSocket.until(() => said(aliceSocket, '8006', 'before the supervisor looks'));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    sockets = [];
    await server.close();
  });

  it('answers 401 without a token', async () => {
    expect((await server.get('/api/talk/userList')).status).toBe(401);
  });

  it('lists another agent’s conversation to a supervisor only, with its last message and counts', async () => {
    const sent = await server.post<Message>('/api/talk/send', { YQToken: v.id, msg: 'alice answers', onlyID: onlyId() }, { token: alice });
    expect(sent.status).toBe(200);
    const theirs = await server.get<{ list: Visitor[] }>('/api/talk/userList', { token: bob });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.list.some((item) => item.YQToken === v.id)).toBe(false);
    const listed = await server.get<{ list: Visitor[] }>('/api/talk/userList', { token: admin });
    const line = listed.body.data.list.find((item) => item.YQToken === v.id);
    expect(line).toMatchObject({ state: 'current', umsg: 1, smsg: 1, lastMessage: { msg: 'alice answers', role: 'service' } });
  });

  it('sends the messages of another agent’s conversation to a supervisor’s console, not to a plain agent’s', async () => {
    const adminSocket = await agentSocket(server, admin);
    const bobSocket = await agentSocket(server, bob);
    sockets.push(adminSocket, bobSocket);
    // Both consoles are identified (5000 answered) before anything is said.
    await adminSocket.barrier();
    await bobSocket.barrier();

    await v.say('the visitor again');
    await adminSocket.until(() => said(adminSocket, '8013', 'the visitor again'));
    const reply = await server.post<Message>('/api/talk/send', { YQToken: v.id, msg: 'alice again', onlyID: onlyId() }, { token: alice });
    expect(reply.status).toBe(200);
    await adminSocket.until(() => said(adminSocket, '8013', 'alice again'));
    // As a line of its list, not as messages for it: nothing that would alert the supervisor.
    expect(said(adminSocket, '8006', 'the visitor again') || said(adminSocket, '8005', 'alice again')).toBe(false);

    await bobSocket.barrier();
    for (const code of ['8005', '8006', '8013']) {
      expect(said(bobSocket, code, 'the visitor again')).toBe(false);
      expect(said(bobSocket, code, 'alice again')).toBe(false);
    }
  });
});

describe.runIf(backends.postgres && backends.redis)('another agent’s conversation listed to a supervisor, across two processes', () => {
  const schema = `wl_${randomBytes(6).toString('hex')}`;
  const shared = { DATABASE_SCHEMA: schema, REDIS_PREFIX: `parley-${schema}` };
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

  it('reaches the supervisor’s console on one process from messages stored on the other', async () => {
    const admin = await a.login();
    expect((await a.post('/api/index/state', { state: '1' }, { token: admin })).status).toBe(200);
    const alice = (await createAgent(a, admin, { username: 'two-alice' })).token ?? '';
    const aliceSocket = await agentSocket(b, alice);
    const v = await visitor(b);
    await v.say('on the second process');
    await aliceSocket.until(() => said(aliceSocket, '8006', 'on the second process'));
    const adminSocket = await agentSocket(a, admin);
    await adminSocket.barrier();
    await v.say('heard on the first');
    await adminSocket.until(() => said(adminSocket, '8013', 'heard on the first'));
    for (const socket of [aliceSocket, adminSocket, v.socket]) socket.close();
  });
});
