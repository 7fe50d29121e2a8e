import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { framesOf, onlyId } from './chat-harness.js';
import { ADMIN, backends } from './harness.js';
import { buildOnce, dropSchema, type ServerProcess, spawnServer } from './processes.js';
import { hasRedisServer, startRedis, stopRedis } from './redis-server.js';
import { TestSocket } from './sockets.js';
import { freePort, waitFor } from './waiting.js';

async function post<T>(url: string, body: unknown, token?: string): Promise<{ status: number; data: T; msg: string; ms: number }> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { data: T; msg: string };
  return { status: response.status, data: json.data, msg: json.msg, ms: performance.now() - started };
}

// Two processes need a shared database server: this runs in the PostgreSQL run, with a Redis of its own.
describe.runIf(backends.postgres && hasRedisServer)('Redis going away under two server processes', () => {
  const schema = `ro_${randomBytes(6).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-redis-outage-'));
  let port = 0;
  let redis: ChildProcess;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    await buildOnce();
    port = await freePort();
    redis = await startRedis(port);
    const env = {
      REDIS_URL: `redis://127.0.0.1:${port}`,
      REDIS_PREFIX: `parley-${schema}`,
      ADMIN_PASSWORD: ADMIN.password,
      // The visitor who leaves is checked well inside the outage.
      PRESENCE_GRACE_MS: '1000',
    };
    a = await spawnServer('apps/server/dist/main.js', dataDir, schema, env);
    b = await spawnServer('apps/server/dist/main.js', dataDir, schema, env);
  }, 300_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    if (redis && redis.exitCode === null) redis.kill('SIGKILL');
    await dropSchema(schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every stored send at once, delivers it live once Redis returns, and reports a visitor who left meanwhile', async () => {
    const login = await post<{ token: string }>(`${b.url}/api/login`, ADMIN);
    expect(login.status).toBe(200);
    const agent = await TestSocket.open(`${b.url.replace('http', 'ws')}/ws/agent?token=${login.data.token}`);
    await agent.frame('0000');
    agent.send({ code: '5000', type: 'service', uuid: '' });

    const initVisitor = async () => {
      const init = await post<{ YQToken: string; id: string }>(`${a.url}/api/visitor/init`, {
        url: 'https://shop.example/',
        title: 'Shop',
        lang: 'en',
      });
      expect(init.status).toBe(200);
      // The credential speaks for the visitor; agents name it by its public id.
      const { YQToken: token, id } = init.data;
      const socket = await TestSocket.open(`${a.url.replace('http', 'ws')}/ws/visitor?YQToken=${token}`);
      await agent.until(() => framesOf(agent, '8002').some((frame) => (frame.data as { YQToken: string }).YQToken === id), 20_000);
      return { token, id, socket };
    };
    const talker = await initVisitor();
    const leaver = await initVisitor();
    const live = await post<Message>(`${a.url}/api/visitor/message`, { YQToken: talker.token, msg: 'before', onlyID: onlyId() });
    expect(live.status).toBe(200);
    await agent.until(() => framesOf(agent, '8006').some((frame) => (frame.data as Message).onlyID === live.data.onlyID), 20_000);

    await stopRedis(redis, port);
    const outageStarted = Date.now();
    leaver.socket.close();
    const sent: { status: number; ms: number; onlyID: string }[] = [];
    // Sends while Redis is away, for about five seconds.
    for (let i = 0; Date.now() - outageStarted < 5000; i++) {
      const id = onlyId();
      const answer = await post<Message>(`${a.url}/api/visitor/message`, { YQToken: talker.token, msg: `during ${i}`, onlyID: id });
      sent.push({ status: answer.status, ms: answer.ms, onlyID: id });
      if (answer.status !== 200) console.info(`send answered ${answer.status}: ${answer.msg}`);
      // A person types: a few messages a second, under the visitor rate limit (5 a second).
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    redis = await startRedis(port);

    const maxMs = Math.max(...sent.map((send) => send.ms));
    const failed = sent.filter((send) => send.status !== 200).length;
    console.info(`redis outage: ${sent.length} sends, ${failed} not 200, slowest ${Math.round(maxMs)} ms`);

    // Every message stored during the outage reaches the agent's open socket, without a catch-up call.
    const delivered = () => {
      const ids = new Set(framesOf(agent, '8006').map((frame) => (frame.data as Message).onlyID));
      return sent.filter((send) => ids.has(send.onlyID)).length;
    };
    await waitFor(() => delivered() === sent.length, 30_000, 'live delivery after the outage').catch(() => undefined);
    console.info(`redis outage: ${delivered()} of ${sent.length} delivered live after Redis returned`);

    // The visitor who closed its socket while Redis was away is reported gone.
    const goneOf = (token: string) => framesOf(agent, '8003').some((frame) => (frame.data as { YQToken: string }).YQToken === token);
    await waitFor(() => goneOf(leaver.id), 30_000, 'the leaver reported gone').catch(() => undefined);
    console.info(`redis outage: visitor who left during the outage reported gone: ${goneOf(leaver.id)}`);

    expect(failed).toBe(0);
    expect(maxMs).toBeLessThan(1000);
    expect(delivered()).toBe(sent.length);
    expect(goneOf(leaver.id)).toBe(true);
    expect(goneOf(talker.id)).toBe(false);

    talker.socket.close();
    agent.close();
  }, 120_000);
});
