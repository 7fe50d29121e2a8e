import { Worker } from 'node:worker_threads';
import { CloseCode } from '@parley/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { Liveness } from './liveness.js';

// The idle sweep under a held event loop: a socket whose heartbeats arrived while the loop was busy must
// not be taken for silent (the bench's runs that ended with most sockets closed under load), and a socket
// that really is silent is still closed.

const IDLE_MS = 300;
/** A client on a thread of its own: its heartbeats keep coming while this thread's loop is held. */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const WebSocket = require(workerData.ws);
const socket = new WebSocket(workerData.url);
socket.on('open', () => {
  setInterval(() => socket.send('ping'), workerData.everyMs);
  parentPort.postMessage('open');
});
`;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  // Last made, first undone: the clients go before the server that waits for them.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function holdLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // The event loop is held: nothing is read from any socket meanwhile.
  }
}

/** A live client (a thread of its own, a heartbeat every 50 ms) and a silent one, both tracked by `liveness`. */
async function twoClients(liveness: Liveness) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  cleanups.push(
    () => liveness.stop(),
    () => new Promise((resolve) => server.close(resolve)),
    () => {
      for (const client of server.clients) client.terminate();
    },
  );
  const closed = new Map<string, number>();
  const connected = new Map<string, WebSocket>();
  server.on('connection', (socket, request) => {
    const name = new URL(request.url ?? '/', 'http://x').searchParams.get('name') ?? '';
    connected.set(name, socket);
    liveness.track(socket);
    socket.on('message', () => liveness.touch(socket));
    socket.on('close', (code) => closed.set(name, code));
  });
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };

  const worker = new Worker(CLIENT, {
    eval: true,
    workerData: { url: `ws://127.0.0.1:${port}/?name=live`, everyMs: 50, ws: require.resolve('ws') },
  });
  cleanups.push(() => worker.terminate());
  await new Promise((resolve) => worker.once('message', resolve));
  const { default: Client } = await import('ws');
  const silent = new Client(`ws://127.0.0.1:${port}/?name=silent`);
  cleanups.push(() => silent.terminate());
  await new Promise((resolve) => silent.once('open', resolve));
  await expect.poll(() => connected.size).toBe(2);
  return { closed, connected };
}

describe('the idle sweep', () => {
  it('closes a silent socket, never one whose heartbeats wait unread behind a held loop', async () => {
    const { closed, connected } = await twoClients(new Liveness(IDLE_MS));

    // Over three idle periods without reading: the live client's heartbeats pile up unread meanwhile.
    holdLoop(IDLE_MS * 3);

    await expect.poll(() => closed.get('silent'), { timeout: 5000 }).toBe(CloseCode.idle);
    // The sweep that closed the silent one judged the live one too, after reading what had waited.
    expect(closed.has('live')).toBe(false);
    expect(connected.get('live')?.readyState).toBe(connected.get('live')?.OPEN);
  });

  it('never closes a live socket when the loop is held between a sweep and its judgement', async () => {
    // The loop is held by a callback that runs after the sweep queued its judgement and before the loop
    // reads again (an immediate queued just ahead of the judgement's): the heartbeats that arrive
    // meanwhile are read only after the judgement.
    const { closed, connected } = await twoClients(new Liveness(IDLE_MS));
    const realSetImmediate = globalThis.setImmediate;
    let held = false;
    const staged = vi.spyOn(globalThis, 'setImmediate').mockImplementation(((callback: () => void) => {
      if (!held && /Liveness\.sweep/.test(new Error().stack ?? '')) {
        held = true;
        realSetImmediate(() => holdLoop(IDLE_MS * 3));
      }
      return realSetImmediate(callback);
    }) as typeof setImmediate);
    cleanups.push(() => staged.mockRestore());

    await expect.poll(() => closed.get('silent'), { timeout: 5000 }).toBe(CloseCode.idle);
    expect(held).toBe(true);
    expect(closed.has('live')).toBe(false);
    expect(connected.get('live')?.readyState).toBe(connected.get('live')?.OPEN);
  });
});
