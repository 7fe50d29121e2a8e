import type { Socket } from 'node:net';
import { frame, SocketCode } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { agentSocket, framesOf, visitor } from './chat-harness.js';
import { startTestServer, type TestServer } from './harness.js';
import { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';

let server: TestServer;
let admin: string;
beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

const tcpOf = (socket: TestSocket) => (socket.ws as unknown as { _socket: Socket })._socket;
const serverSockets = () => [...server.app.websocketServer.clients] as WebSocket[];

describe('typing previews (8011)', () => {
  it('relays at most 4 a second per visitor, across its tabs, and still delivers the last draft', async () => {
    const agent = await agentSocket(server, admin);
    const v = await visitor(server);
    await v.say('about to type a lot');
    const secondTab = await TestSocket.open(`${server.url.replace('http', 'ws')}/ws/visitor?YQToken=${v.credential}`);
    // The server reads a visitor's frames once it has looked the visitor up; it then says who answers.
    await secondTab.frame('2000');
    const started = Date.now();
    for (let index = 0; index < 50; index += 1) secondTab.send({ code: '8011', data: { text: `tab draft ${index}` } });
    // The error answering an unknown frame shows the server has read every frame before it.
    secondTab.send({ code: '9999' });
    await secondTab.frame('4000');
    for (let index = 0; index < 50; index += 1) v.socket.send({ code: '8011', data: { text: `draft ${index}` } });
    v.socket.send({ code: '8011', data: { text: 'final draft' } });
    const mine = () => framesOf(agent, '8011').filter((frame) => (frame.data as { YQToken: string }).YQToken === v.id);
    await agent.until(() => mine().some((frame) => (frame.data as { text: string }).text === 'final draft'));
    const seconds = (Date.now() - started) / 1000;
    // One at once, then one per 1/4 s while frames keep coming, the last draft included.
    expect(mine().length).toBeLessThanOrEqual(1 + Math.ceil(seconds * 4));
    expect(mine().at(-1)?.data).toEqual({ YQToken: v.id, text: 'final draft' });
    agent.close();
    v.socket.close();
    secondTab.close();
  });
});

describe('a peer that stops reading', () => {
  it('is closed with 1013 once more than 1 MiB waits for it, and cut if it never reads the close', async () => {
    const before = new Set(serverSockets());
    const reader = await agentSocket(server, admin);
    const stalled = await agentSocket(server, admin);
    await reader.frame('0000');
    const mine = serverSockets().filter((socket) => !before.has(socket));
    expect(mine).toHaveLength(2);
    tcpOf(reader).pause();
    tcpOf(stalled).pause();

    // 15 KB frames to every agent, as fast as the server takes them, until both sockets are closing.
    const typing = frame(SocketCode.typing, { YQToken: 'flood', text: '中'.repeat(5000) });
    let published = 0;
    let maxBuffered = 0;
    while (mine.some((socket) => socket.readyState === socket.OPEN) && published < 64 * 1024 * 1024) {
      for (let index = 0; index < 20; index += 1) {
        await server.bus.publish({ type: 'frame.agents', to: 'all', frame: typing });
        published += 15_000;
      }
      for (const socket of mine) maxBuffered = Math.max(maxBuffered, socket.bufferedAmount);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(mine.every((socket) => socket.readyState !== socket.OPEN)).toBe(true);
    expect(maxBuffered).toBeLessThan(1024 * 1024 + 64 * 1024);

    // The reader catches up: it receives what was buffered, then the 1013 close.
    tcpOf(reader).resume();
    expect(await reader.closed()).toBe(1013);
    // The stalled peer never reads its close: the server cuts it.
    await waitFor(() => mine[1]?.readyState === mine[1]?.CLOSED, 15_000, 'the slow reader closed');
    expect(serverSockets()).not.toContain(mine[1]);
    tcpOf(stalled).resume();
  });
});

describe('frames sent the moment a socket opens', () => {
  it('are read once the server has looked the client up, never lost', async () => {
    const base = server.url.replace('http', 'ws');
    const v = await visitor(server);
    const tab = await TestSocket.open(`${base}/ws/visitor?YQToken=${v.credential}`);
    tab.send({ code: '9999' });
    tab.send('Y');
    await tab.frame('4000');
    await tab.until(() => tab.texts.includes('Y'));
    const agent = await TestSocket.open(`${base}/ws/agent?token=${admin}`);
    agent.send({ code: '9999' });
    await agent.frame('4000');
    tab.close();
    agent.close();
    v.socket.close();
  });
});
