import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { HEARTBEAT, SOCKET_IDLE_MS } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT, createAgent, type ManualClock, manualClock, startTestServer, type TestServer } from './harness.js';
import { TestSocket } from './sockets.js';

let server: TestServer;
let admin: string;
const wsUrl = (token: string) => `${server.url.replace('http', 'ws')}/ws/agent?token=${encodeURIComponent(token)}`;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

describe('GET /ws/agent', () => {
  it('closes with 4401 for a bad token', async () => {
    const socket = await TestSocket.open(wsUrl('not-a-token'));
    expect(await socket.closed()).toBe(4401);
  });

  it('greets with 0000, echoes the heartbeat, and survives bad frames', async () => {
    const socket = await TestSocket.open(wsUrl(admin));
    await socket.frame('0000');
    socket.send({ code: '5000', type: 'service', uuid: 'x' });
    socket.send('Y');
    await socket.until(() => socket.texts.includes('Y'));
    socket.send('{not json');
    const error = await socket.frame('4000');
    expect(error.data).toEqual({ reason: 'invalid JSON' });
    socket.send('[1,2]');
    socket.send({ code: 'zz' });
    await socket.until(() => socket.frames.filter((frame) => (frame as { code: string }).code === '4000').length === 3);
    socket.send('Y');
    await socket.until(() => socket.texts.filter((text) => text === 'Y').length === 2);
    expect(socket.closeCode).toBeUndefined();
    socket.close();
  });

  it('tells 8000 and closes when the session is logged out, leaving other sessions alone', async () => {
    const token = await server.login();
    const ending = await TestSocket.open(wsUrl(token));
    const staying = await TestSocket.open(wsUrl(admin));
    await ending.frame('0000');
    await staying.frame('0000');
    await server.get('/api/login/logOut', { token });
    await ending.frame('8000');
    expect(await ending.closed()).toBe(4403);
    await staying.barrier();
    expect(staying.closeCode).toBeUndefined();
    staying.close();
  });

  it('tells 8000 to every socket of an agent who is disabled', async () => {
    const { id, token } = await createAgent(server, admin, { username: 'socket-agent' });
    const socket = await TestSocket.open(wsUrl(token ?? ''));
    await socket.frame('0000');
    await server.post('/api/service/doEdit', { id, username: 'socket-agent', nickname: 's', roleId: 2, disabled: true }, { token: admin });
    await socket.frame('8000');
    await socket.closed();
  });

  it("keeps the protocol's 15 s idle rule by default", () => {
    expect(SOCKET_IDLE_MS).toBe(15_000);
    expect(server.config.socketIdleMs).toBe(SOCKET_IDLE_MS);
  });
});

describe('GET /ws/agent silence', () => {
  // The rule is the same whatever the length: a short one lets the test watch it without waiting 15 s.
  const IDLE_MS = 1000;
  let quick: TestServer;
  beforeAll(async () => {
    quick = await startTestServer({ SOCKET_IDLE_MS: String(IDLE_MS) });
  });
  afterAll(() => quick.close());

  it('closes a socket that stays silent for the idle time, and not before', async () => {
    const token = await quick.login();
    const opening = Date.now();
    const socket = await TestSocket.open(`${quick.url.replace('http', 'ws')}/ws/agent?token=${token}`);
    await socket.frame('0000');
    expect(await socket.closed(IDLE_MS + 6000)).toBe(4408);
    expect(socket.closedAt).toBeGreaterThanOrEqual(opening + IDLE_MS);
  });
});

describe('GET /ws/agent under a busy loop', () => {
  const IDLE_MS = 1000;
  let quick: TestServer;
  beforeAll(async () => {
    quick = await startTestServer({ SOCKET_IDLE_MS: String(IDLE_MS) });
  });
  afterAll(() => quick.close());

  // A client in a process of its own, so that its heartbeats keep coming while the server's loop is busy;
  // it prints 'open', 'Y' for each heartbeat answered, and 'close <code>'.
  const CLIENT = `
    const WebSocket = require('ws');
    const ws = new WebSocket(process.env.SOCKET_URL);
    ws.on('open', () => { console.log('open'); setInterval(() => ws.send('${HEARTBEAT}'), 100); });
    ws.on('message', (data) => { if (data.toString() === '${HEARTBEAT}') console.log('${HEARTBEAT}'); });
    ws.on('close', (code) => { console.log('close ' + code); process.exit(0); });
  `;

  it('closes no socket whose heartbeats came while the loop was stalled past the idle time', async () => {
    const token = await quick.login();
    const child = spawn(process.execPath, ['-e', CLIENT], {
      cwd: APP_ROOT,
      env: { ...process.env, SOCKET_URL: `${quick.url.replace('http', 'ws')}/ws/agent?token=${encodeURIComponent(token)}` },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    const waiters = new Set<() => void>();
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      for (const wake of [...waiters]) wake();
    });
    const until = (check: () => boolean) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the client said: ${lines.slice(-5).join(' | ')}`)), 10_000);
        const wake = () => {
          if (!check()) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
        wake();
      });
    try {
      const answered = () => lines.filter((line) => line === HEARTBEAT).length;
      await until(() => answered() >= 3);
      // The server's loop is held for twice the idle time (a heavy request, a long collection).
      const held = Date.now() + 2 * IDLE_MS;
      while (Date.now() < held) {
        // busy: nothing of the loop runs
      }
      const before = answered();
      await until(() => answered() >= before + 5 || lines.some((line) => line.startsWith('close')));
      expect(lines.filter((line) => line.startsWith('close'))).toEqual([]);
    } finally {
      child.kill();
    }
  });
});

describe('GET /ws/agent with an expired token', () => {
  let short: TestServer;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = manualClock();
    short = await startTestServer({ TOKEN_TTL: '1' }, { authNow: clock.now });
  });
  afterAll(() => short.close());
  const url = (value: string) => `${short.url.replace('http', 'ws')}/ws/agent?token=${value}`;

  it('closes with 4402, and a refreshed token connects', async () => {
    const token = await short.login();
    clock.advance(1100);
    const expired = await TestSocket.open(url(token));
    expect(await expired.closed()).toBe(4402);
    const renewed = await short.get<{ token: string }>('/api/refreshToken', { token });
    const socket = await TestSocket.open(url(renewed.body.data.token));
    await socket.frame('0000');
    socket.close();
  });

  it('keeps a socket open across a refresh, and the logout of the new token closes it', async () => {
    const token = await short.login();
    const socket = await TestSocket.open(url(token));
    await socket.frame('0000');
    clock.advance(1100);
    const renewed = await short.get<{ token: string }>('/api/refreshToken', { token });
    await socket.barrier();
    expect(socket.closeCode).toBeUndefined();
    await short.get('/api/login/logOut', { token: renewed.body.data.token });
    await socket.frame('8000');
    expect(await socket.closed()).toBe(4403);
  });
});
