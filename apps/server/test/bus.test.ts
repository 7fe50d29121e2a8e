import type { ChildProcess } from 'node:child_process';
import { frame, SocketCode } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBus } from '../src/realtime/bus.js';
import type { BusEvent } from '../src/realtime/events.js';
import { hasRedisServer, startRedis, stopRedis } from './redis-server.js';
import { freePort, waitFor } from './waiting.js';

const event = (n: number): BusEvent => ({ type: 'frame.agents', to: 'all', frame: frame(SocketCode.waiting, { position: n }) });

// Real Redis, stopped and started again by this test: a redis-server of its own.
describe.runIf(hasRedisServer)('RedisBus while Redis is away', () => {
  let port = 0;
  let redis: ChildProcess;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
  });
  afterAll(() => {
    if (redis.exitCode === null) redis.kill('SIGKILL');
  });

  it('delivers in-process at once, keeps only the newest maxQueued events, and sends them in order once Redis returns', async () => {
    const url = `redis://127.0.0.1:${port}`;
    const sender = await RedisBus.connect(url, 'bus-test', { maxQueued: 5, settleMs: 3000 });
    const receiver = await RedisBus.connect(url, 'bus-test');
    const warnings: string[] = [];
    sender.onWarning = (message) => warnings.push(message);
    const local: number[] = [];
    const remote: number[] = [];
    const numberOf = (e: BusEvent) => (e.type === 'frame.agents' && e.frame.code === SocketCode.waiting ? e.frame.data.position : -1);
    sender.subscribe((e) => local.push(numberOf(e)));
    receiver.subscribe((e) => remote.push(numberOf(e)));

    await sender.publish(event(0));
    await waitFor(() => remote.length === 1, 5000, 'the first event');

    await stopRedis(redis, port);
    for (let n = 1; n <= 12; n++) {
      const started = performance.now();
      await sender.publish(event(n));
      expect(performance.now() - started).toBeLessThan(50);
    }
    // This process's own handlers heard everything at once, and only once.
    expect(local).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);

    redis = await startRedis(port);
    await waitFor(() => remote.length === 6, 15_000, 'the queued events');
    expect(remote).toEqual([0, 8, 9, 10, 11, 12]);
    expect(warnings.some((warning) => /dropped the \d+ oldest/.test(warning))).toBe(true);
    // Live again: no more queueing.
    await sender.publish(event(13));
    await waitFor(() => remote.length === 7, 5000, 'a live event after the outage');
    expect(local.at(-1)).toBe(13);
    await sender.close();
    await receiver.close();
  }, 60_000);
});
