import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { HEARTBEAT } from '@parley/protocol';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Limits, limitTable } from '../src/lib/limits.js';
import { onlyId } from './chat-harness.js';
import { backends, startTestServer, type TestServer } from './harness.js';
import { hasRedisServer, startRedis, stopRedis } from './redis-server.js';
import { TestSocket } from './sockets.js';
import { freePort } from './waiting.js';

const servers: TestServer[] = [];
async function start(env: Record<string, string>): Promise<TestServer> {
  const server = await startTestServer(env);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Answer {
  status: number;
  body: { code: number; msg: string; data: unknown };
  retryAfter: string | undefined;
}

/** One request on a fresh connection from `from` (any 127.x address works on Linux loopback). */
function call(server: TestServer, method: 'GET' | 'POST', path: string, body?: unknown, from = '127.0.0.1'): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      {
        method,
        localAddress: from,
        agent: false,
        headers: { 'accept-language': 'en', ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(text),
            retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const init = (server: TestServer, from?: string) =>
  call(server, 'POST', '/api/visitor/init', { url: 'https://shop.example/', title: 'Shop', lang: 'en' }, from);

function count(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** Resolves when the server closes `socket`, or with false after `ms`. */
function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  if (socket.closed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function open(server: TestServer, from = '127.0.0.1'): Promise<Socket> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: from }, () => resolve(socket));
    socket.once('error', reject);
    // Read whatever comes, so the server's end of the connection is seen.
    socket.resume();
  });
}

describe('POST /api/visitor/init', () => {
  it('answers 429 with Retry-After beyond the per-address limit, while another address still gets 200', async () => {
    const server = await start({ RATE_LIMITS: 'visitorInit.address=10/60' });
    const burst = await Promise.all(Array.from({ length: 30 }, () => init(server)));
    expect(count(burst.map((answer) => answer.status))).toEqual({ 200: 10, 429: 20 });
    const refused = burst.find((answer) => answer.status === 429);
    expect(refused?.body).toEqual({ code: 429, msg: 'Too many requests, please slow down', data: null });
    expect(Number(refused?.retryAfter)).toBeGreaterThan(0);
    expect((await init(server, '127.0.0.2')).status).toBe(200);
  });
});

describe('POST /api/visitor/message', () => {
  it('holds the per-address limit however many tokens the messages rotate through', async () => {
    const server = await start({ RATE_LIMITS: 'visitorInit.address=1000/60,visitorMessage.address=100/60' });
    const tokens: string[] = [];
    for (let index = 0; index < 50; index += 1) {
      const answer = await server.post<{ YQToken: string }>('/api/visitor/init', { url: 'https://shop.example/', lang: 'en' });
      tokens.push(answer.body.data.YQToken);
    }
    const statuses: number[] = [];
    // 25 rounds of one message per token: 1,250 messages from one address.
    for (let round = 0; round < 25; round += 1) {
      const answers = await Promise.all(
        tokens.map((token) => server.post('/api/visitor/message', { YQToken: token, msg: `hi ${round}`, onlyID: onlyId() })),
      );
      statuses.push(...answers.map((answer) => answer.status));
    }
    const accepted = statuses.filter((status) => status === 200).length;
    expect(statuses.length).toBe(1250);
    expect(accepted).toBe(100);
    expect(statuses.filter((status) => status === 429).length).toBe(1150);
  }, 120_000);
});

describe('POST /api/visitor/upload', () => {
  it('counts uploads per token, also when the token comes as a form field', async () => {
    const server = await start({ RATE_LIMITS: 'visitorUpload.token=2/60' });
    const token = (await server.post<{ YQToken: string }>('/api/visitor/init', { url: 'https://shop.example/', lang: 'en' })).body.data
      .YQToken;
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082',
      'hex',
    );
    const statuses: number[] = [];
    for (let index = 0; index < 4; index += 1) {
      const form = new FormData();
      form.append('YQToken', token);
      form.append('file', new Blob([png]), 'dot.png');
      statuses.push((await fetch(`${server.url}/api/visitor/upload`, { method: 'POST', body: form })).status);
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
  });
});

describe('POST /api/register', () => {
  it('takes at most 3 registrations an hour from one address', async () => {
    const server = await start({});
    const answers: Answer[] = [];
    for (let index = 0; index < 6; index += 1) {
      answers.push(await call(server, 'POST', '/api/register', { username: `newcomer-${index}`, password: 'secret-pass-123' }));
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429, 429, 429]);
    expect(Number(answers[3]?.retryAfter)).toBeGreaterThan(3000);
    const other = await call(server, 'POST', '/api/register', { username: 'elsewhere', password: 'secret-pass-123' }, '127.0.0.2');
    expect(other.status).toBe(200);
  });
});

describe.skipIf(!backends.redis)('limits with Redis', () => {
  it('are shared by every process of one deployment', async () => {
    const env = { RATE_LIMITS: 'visitorInit.address=6/60', REDIS_PREFIX: `parley-test-limits-${Date.now()}` };
    const [first, second] = [await start(env), await start(env)];
    if (!first || !second) throw new Error('no servers');
    const answers = await Promise.all([...Array.from({ length: 4 }, () => init(first)), ...Array.from({ length: 4 }, () => init(second))]);
    expect(count(answers.map((answer) => answer.status))).toEqual({ 200: 6, 429: 2 });
  });
});

describe.skipIf(!hasRedisServer)('limits when Redis is down', () => {
  it('let requests through instead of failing them', async () => {
    const port = await freePort();
    const redis = await startRedis(port);
    const app = Fastify();
    try {
      const limits = await Limits.register(
        app,
        limitTable('register.address=2/60'),
        { url: `redis://127.0.0.1:${port}`, prefix: 'parley-test-down' },
        () => undefined,
      );
      app.post('/limited', { onRequest: (req, reply) => limits.address('register', req, reply) }, async () => ({ ok: true }));
      app.setErrorHandler((error: { status?: number }, _req, reply) => reply.status(error.status ?? 500).send({ failed: true }));
      app.addHook('onClose', () => limits.close());
      const statuses = async () => (await app.inject({ method: 'POST', url: '/limited' })).statusCode;
      expect([await statuses(), await statuses(), await statuses()]).toEqual([200, 200, 429]);
      await stopRedis(redis, port);
      expect([await statuses(), await statuses(), await statuses()]).toEqual([200, 200, 200]);
    } finally {
      redis.kill('SIGKILL');
      await app.close();
    }
  });
});

describe('connections', () => {
  it('closes idle keep-alive connections and silent ones after the configured timeouts', async () => {
    const server = await start({ KEEP_ALIVE_TIMEOUT_MS: '300', HEADERS_TIMEOUT_MS: '300', IDLE_TIMEOUT_MS: '600' });
    const silent = await Promise.all(Array.from({ length: 5 }, () => open(server)));
    const kept = await open(server);
    kept.write('GET /api/publicKey HTTP/1.1\r\nHost: test\r\nConnection: keep-alive\r\n\r\n');
    const halfHeaders = await open(server);
    halfHeaders.write('GET /api/publicKey HTTP/1.1\r\nHost: test\r\n');
    const closed = await Promise.all([...silent, kept, halfHeaders].map((socket) => closedWithin(socket, 5000)));
    expect(closed.filter(Boolean).length).toBe(7);
  });

  it('keeps WebSockets open past those timeouts', async () => {
    const server = await start({ KEEP_ALIVE_TIMEOUT_MS: '300', HEADERS_TIMEOUT_MS: '300', IDLE_TIMEOUT_MS: '300' });
    const token = (await server.post<{ YQToken: string }>('/api/visitor/init', { url: 'https://shop.example/', lang: 'en' })).body.data
      .YQToken;
    const socket = await TestSocket.open(`${server.url.replace('http', 'ws')}/ws/visitor?YQToken=${token}`);
    // An idle connection opened with the socket, closed by the server, shows that the timeouts ran.
    const idle = await open(server);
    expect(await closedWithin(idle, 5000)).toBe(true);
    expect(await closedWithin(await open(server), 5000)).toBe(true);
    expect(socket.closeCode).toBeUndefined();
    socket.send(HEARTBEAT);
    await socket.until(() => socket.texts.includes(HEARTBEAT));
    socket.close();
  });

  it('refuses TCP connections beyond the per-address cap while another address still gets 200', async () => {
    const server = await start({ MAX_CONNECTIONS_PER_ADDRESS: '20' });
    const held = await Promise.all(Array.from({ length: 20 }, () => open(server)));
    const attempts = await Promise.all(
      Array.from({ length: 5 }, () =>
        call(server, 'GET', '/api/publicKey').then(
          (answer) => answer.status,
          () => 'failed' as const,
        ),
      ),
    );
    expect(attempts).toEqual(['failed', 'failed', 'failed', 'failed', 'failed']);
    expect((await call(server, 'GET', '/api/publicKey', undefined, '127.0.0.2')).status).toBe(200);
    for (const socket of held) socket.destroy();
    await Promise.all(held.map((socket) => closedWithin(socket, 1000)));
  });

  it('behind a trusted proxy, caps the sockets per forwarded client address, not the proxy connections', async () => {
    const server = await start({ TRUST_PROXY: '127.0.0.0/8', MAX_CONNECTIONS_PER_ADDRESS: '2', MAX_AGENT_SOCKETS_PER_ADDRESS: '2' });
    const held = await Promise.all(Array.from({ length: 4 }, () => open(server)));
    expect((await call(server, 'GET', '/api/publicKey')).status).toBe(200);
    const url = `${server.url.replace('http', 'ws')}/ws/agent?token=${await server.login()}`;
    const clients: WebSocket[] = [];
    const upgrade = (client: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers: { 'x-forwarded-for': client } });
        clients.push(ws);
        ws.once('error', () => undefined);
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('open', () => resolve(101));
      });
    const statuses = [
      await upgrade('203.0.113.7'),
      await upgrade('203.0.113.7'),
      await upgrade('203.0.113.7'),
      await upgrade('203.0.113.8'),
    ];
    expect(statuses).toEqual([101, 101, 429, 101]);
    for (const client of clients) client.terminate();
    for (const socket of held) socket.destroy();
  });

  it('refuses visitor sockets beyond the per-address cap with 429', async () => {
    const server = await start({ MAX_VISITOR_SOCKETS_PER_ADDRESS: '3' });
    const token = (await server.post<{ YQToken: string }>('/api/visitor/init', { url: 'https://shop.example/', lang: 'en' })).body.data
      .YQToken;
    const url = `${server.url.replace('http', 'ws')}/ws/visitor?YQToken=${token}`;
    const sockets = await Promise.all(Array.from({ length: 3 }, () => TestSocket.open(url)));
    expect(sockets.map((socket) => socket.closeCode)).toEqual([undefined, undefined, undefined]);
    const refused = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('error', () => undefined);
      ws.once('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.once('open', () => reject(new Error('opened beyond the cap')));
    });
    expect(refused).toBe(429);
    sockets[0]?.close();
    await sockets[0]?.closed();
    // The server counts the socket until its TCP connection is gone, a moment after the close handshake.
    let again: TestSocket | undefined;
    const deadline = Date.now() + 5000;
    while (!again && Date.now() < deadline) again = await TestSocket.open(url).catch(() => undefined);
    expect(again?.ws.readyState).toBe(WebSocket.OPEN);
    for (const socket of [...sockets, again]) socket?.close();
  });
});
