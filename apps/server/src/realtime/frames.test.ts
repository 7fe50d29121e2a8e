import type { Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { sendText } from './frames.js';

// A batch of messages fans out to the same sockets in one turn of the event loop; each socket's frames of
// that turn must leave in one write (not a system call per frame), all of them, in order, and none held
// past the turn that sent it.

/** A client on a thread of its own: says when it is open, then how many frames came before 'end', or its close. */
const READER = `
const { parentPort, workerData } = require('node:worker_threads');
const WebSocket = require(workerData.ws);
const socket = new WebSocket(workerData.url);
let frames = 0;
socket.on('open', () => parentPort.postMessage('open'));
socket.on('message', (data) => {
  if (data.toString() === 'end') parentPort.postMessage({ frames });
  else frames += 1;
});
socket.on('close', (closed) => parentPort.postMessage({ frames, closed }));
`;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server-side socket with its connection's writes counted, and a client that records what it receives. */
async function connected() {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  const accepted = new Promise<WebSocket>((resolve) => server.once('connection', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${port}`);
  cleanups.push(() => client.terminate());
  const received: string[] = [];
  client.on('message', (data) => received.push(data.toString()));
  const socket = await accepted;
  await new Promise((resolve) => client.once('open', resolve));

  // What the connection hands to the system: one call of _write or _writev is one write.
  const connection = (socket as unknown as { _socket: Socket })._socket;
  const writes = { count: 0 };
  const observed = connection as unknown as Record<'_write' | '_writev', (...args: unknown[]) => void>;
  for (const name of ['_write', '_writev'] as const) {
    const original = observed[name].bind(connection);
    observed[name] = (...args: unknown[]) => {
      writes.count += 1;
      original(...args);
    };
  }
  return { socket, received, writes };
}

describe('frames sent in one turn', () => {
  it('leave a socket in one write, every one of them and in order', async () => {
    const { socket, received, writes } = await connected();
    const frames = Array.from({ length: 40 }, (_, index) => `frame ${index}`);

    for (const text of frames) sendText(socket, text);
    expect(writes.count).toBe(0);

    await expect.poll(() => received.length).toBe(40);
    expect(received).toEqual(frames);
    expect(writes.count).toBe(1);
  });

  it('hold no frame past its own turn: a frame sent alone goes out alone', async () => {
    const { socket, received, writes } = await connected();
    sendText(socket, 'first');
    await expect.poll(() => received).toEqual(['first']);
    sendText(socket, 'second');
    sendText(socket, 'third');
    await expect.poll(() => received).toEqual(['first', 'second', 'third']);
    expect(writes.count).toBe(2);
  });

  it('never count against a peer that reads: more than the slow-peer limit in one turn all arrives', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    const accepted = new Promise<WebSocket>((resolve) => server.once('connection', resolve));
    // The client reads on a thread of its own, as a console on another machine would, while this thread
    // sends without pausing.
    const reader = new Worker(READER, { eval: true, workerData: { url: `ws://127.0.0.1:${port}`, ws: require.resolve('ws') } });
    cleanups.push(() => reader.terminate());
    const socket = await accepted;
    await new Promise((resolve) => reader.once('message', resolve));
    let closed: number | undefined;
    socket.on('close', (code) => {
      closed = code;
    });
    const heard = new Promise<unknown>((resolve) => reader.on('message', resolve));

    // 80 frames of 30 KB, 2.4 MB in one turn: more than twice what a peer may leave unread.
    for (let index = 0; index < 80; index += 1) sendText(socket, `${index} ${'x'.repeat(30_000)}`);
    sendText(socket, 'end');

    expect(await heard).toEqual({ frames: 80 });
    expect(closed).toBeUndefined();
    expect(socket.readyState).toBe(socket.OPEN);
  });

  it('go out before the connection closes when the socket is closed in the same turn', async () => {
    const { socket, received } = await connected();
    sendText(socket, 'last words');
    socket.close(1000, 'done');
    await expect.poll(() => received).toEqual(['last words']);
  });
});
