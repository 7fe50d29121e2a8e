import { randomBytes } from 'node:crypto';
import type { Message } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, visitor } from './chat-harness.js';
import { backends, createAgent, startTestServer, type TestServer } from './harness.js';
import { dropSchema } from './processes.js';
import type { TestSocket } from './sockets.js';

// Each process keeps a visitor's monitors in memory between messages: a supervisor who starts monitoring
// gets the next message, and once the conversation ends its monitors are gone, in every process.

const said = (socket: TestSocket, msg: string) => framesOf(socket, '8006').some((frame) => (frame.data as Message).msg === msg);

/**
 * Alice holds the visitor's conversations (the administrator, a supervisor, is hidden): `monitorVia` takes
 * the monitor and ends the conversation, `chatVia` stores the visitor's messages.
 */
async function monitorThenEnd(monitorVia: TestServer, chatVia: TestServer, prefix: string): Promise<void> {
  const admin = await monitorVia.login();
  expect((await monitorVia.post('/api/index/state', { state: '1' }, { token: admin })).status).toBe(200);
  const alice = (await createAgent(monitorVia, admin, { username: `${prefix}alice` })).token ?? '';
  const aliceSocket = await agentSocket(monitorVia, alice);
  const adminSocket = await agentSocket(monitorVia, admin);
  const v = await visitor(chatVia);

  // Before any monitor: the notifier has read (and kept) that nobody monitors this visitor.
  await v.say('before the monitor');
  await aliceSocket.until(() => said(aliceSocket, 'before the monitor'));

  expect((await monitorVia.post('/api/talk/monitor', { YQToken: v.id }, { token: admin })).status).toBe(200);
  await v.say('while monitored');
  await adminSocket.until(() => said(adminSocket, 'while monitored'));
  await aliceSocket.until(() => said(aliceSocket, 'while monitored'));

  // Ending the conversation clears its monitors: the next conversation's messages reach its agent only.
  expect((await monitorVia.post('/api/talk/end', { YQToken: v.id }, { token: alice })).status).toBe(200);
  await v.say('a new conversation');
  await aliceSocket.until(() => said(aliceSocket, 'a new conversation'));
  // One bus event carries a frame to all its agents' sockets: the administrator's would be written before this echo.
  await adminSocket.barrier();
  expect(said(adminSocket, 'a new conversation')).toBe(false);
  for (const socket of [aliceSocket, adminSocket, v.socket]) socket.close();
}

describe('POST /api/talk/monitor', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('gets the supervisor the next message of a visitor whose monitors were read already, and nothing after the conversation ends', async () => {
    await monitorThenEnd(server, server, '');
  });
});

describe.runIf(backends.postgres && backends.redis)('POST /api/talk/monitor across two processes', () => {
  const schema = `mo_${randomBytes(6).toString('hex')}`;
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

  it('reaches the process that stores the messages: the monitor taken on one, the messages on the other', async () => {
    await monitorThenEnd(a, b, 'two-');
  });
});
