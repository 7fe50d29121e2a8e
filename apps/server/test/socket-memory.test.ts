import type { IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, visitor } from './chat-harness.js';
import { startTestServer, type TestServer } from './harness.js';
import { waitFor } from './waiting.js';

// A full collection on demand, as the benches take one (bench/collect-garbage.mjs).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

let server: TestServer;
let admin: string;
beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

describe('an open socket', () => {
  // A site holds tens of thousands of idle sockets: the request that opened one (its headers, Fastify's
  // request and reply, a logger) cost more than the socket itself when kept for its life.
  it('keeps nothing of the request that opened it, and still works', async () => {
    const requests: WeakRef<IncomingMessage>[] = [];
    const remember = (req: IncomingMessage) => requests.push(new WeakRef(req));
    server.app.server.prependListener('upgrade', remember);
    const agent = await agentSocket(server, admin);
    const v = await visitor(server);
    server.app.server.off('upgrade', remember);
    expect(requests).toHaveLength(2);

    await waitFor(
      () => {
        collectGarbage();
        return requests.every((request) => request.deref() === undefined);
      },
      5000,
      'the upgrade requests to be collected',
    );

    // Both still heard and answered: the agent sees the visitor's message, the heartbeat is echoed.
    await v.say('still here?');
    await agent.until(() => agent.frames.some((frame) => (frame as { code: string }).code === '8006'));
    v.socket.send('Y');
    await v.socket.until(() => v.socket.texts.includes('Y'));
    expect(v.socket.closeCode).toBeUndefined();
    agent.close();
    v.socket.close();
  });
});
