import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundError } from '../src/lib/outbound.js';
import { ThreadedOutbound } from '../src/lib/outbound-thread.js';

/** Epoch milliseconds on a clock every thread of the process shares. */
const clock = () => performance.timeOrigin + performance.now();

/**
 * A receiver on a thread of its own, so that it answers while the test's thread is busy: it answers 204
 * (or, on `/slow`, after 2 s) and tells the time each request arrived.
 */
function startReceiver(): Promise<{ url: string; arrivals: () => number[]; stop: () => Promise<number> }> {
  const thread = new Worker(
    `
    const { parentPort } = require('node:worker_threads');
    const { createServer } = require('node:http');
    const server = createServer((req, res) => {
      parentPort.postMessage({ arrived: performance.timeOrigin + performance.now() });
      req.resume();
      req.on('end', () => setTimeout(() => res.writeHead(204).end(), req.url === '/slow' ? 2000 : 0));
    });
    server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
    `,
    { eval: true },
  );
  const arrivals: number[] = [];
  return new Promise((resolve) => {
    thread.on('message', (message: { port?: number; arrived?: number }) => {
      if (message.arrived !== undefined) arrivals.push(message.arrived);
      if (message.port !== undefined)
        resolve({ url: `http://127.0.0.1:${message.port}`, arrivals: () => [...arrivals], stop: () => thread.terminate() });
    });
  });
}

describe('the outbound thread', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.stop();
  });

  it('makes the exchange while the event loop that asked is held', async () => {
    const client = new ThreadedOutbound(['127.0.0.1']);
    try {
      // Once to start the thread (its program is built and loaded), then the measured call.
      expect((await client.request(`${receiver.url}/hook`, { method: 'POST', body: '{}', timeoutMs: 10_000 })).status).toBe(204);
      const before = receiver.arrivals().length;
      const answered = client.request(`${receiver.url}/hook`, { method: 'POST', body: '{}', timeoutMs: 10_000, readBody: false });
      // The call is handed over at the end of this turn; then the loop is held for 600 ms.
      await Promise.resolve();
      const heldFrom = clock();
      while (clock() - heldFrom < 600);
      const heldUntil = clock();
      expect((await answered).status).toBe(204);
      // The receiver's word of the arrival comes by a message of its own, after the answer perhaps.
      await expect.poll(() => receiver.arrivals().length).toBeGreaterThan(before);
      const arrived = receiver.arrivals()[before];
      // On the event loop the request would not even have been written before the hold ended.
      expect(arrived).toBeLessThan(heldUntil);
    } finally {
      client.close();
    }
  });

  it('keeps the guard: private addresses refused, the time allowed kept, answers in any order', async () => {
    const guarded = new ThreadedOutbound([]);
    const open = new ThreadedOutbound(['127.0.0.1']);
    try {
      const refused = await guarded
        .request(`${receiver.url}/hook`, { method: 'POST', body: '{}', timeoutMs: 5000 })
        .catch((error) => error);
      expect(refused).toBeInstanceOf(OutboundError);
      expect((refused as OutboundError).reason).toBe('blockedAddress');
      const bad = await guarded.request('ftp://example.com/', { timeoutMs: 5000 }).catch((error) => error);
      expect((bad as OutboundError).reason).toBe('badUrl');

      const slow = open.request(`${receiver.url}/slow`, { method: 'POST', body: '{}', timeoutMs: 300 }).catch((error) => error);
      const quick = open.request(`${receiver.url}/hook`, { method: 'POST', body: '{}', timeoutMs: 5000 });
      expect((await quick).status).toBe(204);
      const late = await slow;
      expect(late).toBeInstanceOf(OutboundError);
      expect((late as OutboundError).reason).toBe('timeout');
    } finally {
      guarded.close();
      open.close();
    }
  });

  it('fails the calls under way when closed, and starts again at the next call', async () => {
    const client = new ThreadedOutbound(['127.0.0.1']);
    const under = client.request(`${receiver.url}/slow`, { method: 'POST', body: '{}', timeoutMs: 10_000 }).catch((error) => error);
    // Wait until the call has reached the receiver, so it is under way in the thread when the thread ends.
    const before = receiver.arrivals().length;
    await expect.poll(() => receiver.arrivals().length, { timeout: 10_000 }).toBeGreaterThan(before);
    client.close();
    const failed = await under;
    expect(failed).toBeInstanceOf(OutboundError);
    expect((failed as OutboundError).reason).toBe('network');
    try {
      expect((await client.request(`${receiver.url}/hook`, { method: 'POST', body: '{}', timeoutMs: 10_000 })).status).toBe(204);
    } finally {
      client.close();
    }
  });
});
