import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { SharedVisitorPresence } from '../src/realtime/visitor-presence.js';
import { backends } from './harness.js';

// Several processes only exist with Redis; this runs where the CI variables provide it.
describe.runIf(backends.redis)('visitor presence shared through Redis', () => {
  const prefix = `parley-vp-${randomBytes(6).toString('hex')}`;
  const redis = new Redis(backends.redis ?? '');
  const fail = (error: unknown) => {
    throw error;
  };

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('sees other live processes, ignores dead ones, and reports what only a dead one held', async () => {
    const orphaned: string[] = [];
    const first = await SharedVisitorPresence.connect(backends.redis ?? '', prefix, () => fail(new Error('first')), fail);
    const second = await SharedVisitorPresence.connect(backends.redis ?? '', prefix, (token) => orphaned.push(token), fail);
    const third = await SharedVisitorPresence.connect(backends.redis ?? '', prefix, (token) => orphaned.push(`third:${token}`), fail);

    await first.held('only-first', 1);
    await first.held('both', 2);
    await second.held('both', 1);
    expect(await second.heldElsewhere('only-first')).toBe(true);
    expect(await first.heldElsewhere('both')).toBe(true);
    expect(await second.heldElsewhere('nobody')).toBe(false);

    // A tab closed on the second process: it holds no socket of the visitor any more.
    await second.held('both', 0);
    expect(await first.heldElsewhere('both')).toBe(false);
    await second.held('both', 1);

    // The first process dies: it stops heartbeating and its last beat is older than the stale limit.
    await first.stop();
    await redis.zadd(`${prefix}:visitor-nodes`, Date.now() - 60_000, first.nodeId);
    expect(await second.heldElsewhere('only-first')).toBe(false);

    // One sweep claims the dead process; its visitor held nowhere else is reported gone, once.
    await Promise.all([second.sweep(), third.sweep()]);
    expect(orphaned.map((token) => token.replace('third:', ''))).toEqual(['only-first']);
    expect(await redis.exists(`${prefix}:node-visitors:${first.nodeId}`)).toBe(0);
    await second.stop();
    await third.stop();
  });
});
