import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { visitor } from './chat-harness.js';
import { startTestServer, type TestServer } from './harness.js';
import { hasRedisServer, startRedis, stopRedis } from './redis-server.js';
import { TestSocket } from './sockets.js';
import { freePort, waitFor } from './waiting.js';

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

async function metricsText(base: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; type: string }> {
  const response = await fetch(`${base}/metrics`, { headers });
  return { status: response.status, text: await response.text(), type: response.headers.get('content-type') ?? '' };
}

/** The value of one series of the exposition text (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) return Number(match[3]);
  }
  return 0;
}

describe('GET /healthz', () => {
  it('answers 200 while the process serves', async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});

describe('GET /readyz', () => {
  it('answers 200 while the database (and Redis, when set) answer', async () => {
    const response = await fetch(`${server.url}/readyz`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, string>;
    expect(body.status).toBe('ok');
    expect(body.database).toBe('ok');
    expect(body.redis).toBe(server.config.redisUrl ? 'ok' : undefined);
  });
});

describe('GET /metrics', () => {
  it('answers Prometheus text to loopback, counting requests, sockets and messages', async () => {
    const before = await metricsText(server.url);
    expect(before.status).toBe(200);
    expect(before.type).toMatch(/^text\/plain/);
    expect(before.text).toContain('process_cpu_user_seconds_total');
    expect(sample(before.text, 'parley_agent_sockets')).toBe(0);

    const agent = await TestSocket.open(`${server.url.replace('http', 'ws')}/ws/agent?token=${encodeURIComponent(admin)}`);
    await agent.frame('0000');
    const guest = await visitor(server);
    await guest.say('hello');
    await guest.say('again');
    await server.get('/api/userInfo', { token: admin });
    await server.get('/api/no-such-route');

    const after = await metricsText(server.url);
    expect(sample(after.text, 'parley_agent_sockets')).toBe(1);
    expect(sample(after.text, 'parley_visitor_sockets')).toBe(1);
    expect(
      sample(after.text, 'parley_messages_total', { sender: 'visitor' }) -
        sample(before.text, 'parley_messages_total', { sender: 'visitor' }),
    ).toBe(2);
    expect(
      sample(after.text, 'parley_http_requests_total', { method: 'GET', route: '/api/userInfo', status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    // Unknown paths share one series, whatever was asked.
    expect(after.text).not.toContain('no-such-route');
    expect(sample(after.text, 'parley_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(
      1,
    );
    agent.close();
    guest.socket.close();
  });

  it('refuses a request that came through an untrusted proxy (403)', async () => {
    const response = await metricsText(server.url, { 'x-forwarded-for': '203.0.113.9' });
    expect(response.status).toBe(403);
    expect(JSON.parse(response.text)).toMatchObject({ code: 403, data: null });
  });

  it('with METRICS_TOKEN set, answers only a matching bearer (401 otherwise)', async () => {
    const guarded = await startTestServer({ METRICS_TOKEN });
    try {
      expect((await metricsText(guarded.url)).status).toBe(401);
      expect((await metricsText(guarded.url, { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await metricsText(guarded.url, { authorization: `Bearer ${METRICS_TOKEN}x` })).status).toBe(401);
      const allowed = await metricsText(guarded.url, { authorization: `Bearer ${METRICS_TOKEN}`, 'x-forwarded-for': '203.0.113.9' });
      expect(allowed.status).toBe(200);
      expect(allowed.text).toContain('parley_http_requests_total');
    } finally {
      await guarded.close();
    }
  });
});

async function readyStatus(base: string): Promise<number> {
  return (await fetch(`${base}/readyz`)).status;
}

describe.skipIf(!hasRedisServer)('GET /readyz with Redis', () => {
  it('answers 503 while Redis is away and 200 again once it is back', async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    const withRedis = await startTestServer({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PREFIX: `parley-ready-${port}` });
    try {
      expect(await readyStatus(withRedis.url)).toBe(200);
      await stopRedis(redis, port);
      await waitFor(async () => (await readyStatus(withRedis.url)) === 503, 20_000, 'readyz to say 503');
      const body = (await (await fetch(`${withRedis.url}/readyz`)).json()) as Record<string, string>;
      expect(body).toMatchObject({ status: 'unavailable', database: 'ok', redis: 'down' });
      expect((await fetch(`${withRedis.url}/healthz`)).status).toBe(200);
      redis = await startRedis(port);
      await waitFor(async () => (await readyStatus(withRedis.url)) === 200, 20_000, 'readyz to say 200');
    } finally {
      await withRedis.close();
      redis.kill('SIGKILL');
    }
  }, 60_000);
});
