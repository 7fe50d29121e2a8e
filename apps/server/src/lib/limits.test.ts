import { describe, expect, it } from 'vitest';
import { WindowCounts } from './limits.js';

describe('WindowCounts', () => {
  it('counts a key within its window and starts over when the window ends', () => {
    let now = 1_000;
    const counts = new WindowCounts(() => now);
    expect(counts.hit('a', 10_000)).toEqual({ count: 1, ttlMs: 10_000 });
    now += 4_000;
    expect(counts.hit('a', 10_000)).toEqual({ count: 2, ttlMs: 6_000 });
    expect(counts.hit('b', 10_000)).toEqual({ count: 1, ttlMs: 10_000 });
    now += 6_000;
    expect(counts.hit('a', 10_000)).toEqual({ count: 1, ttlMs: 10_000 });
    expect(counts.hit('b', 10_000)).toEqual({ count: 2, ttlMs: 4_000 });
  });

  it('answers as the rate-limit plugin’s store, one table for every limit', () => {
    const counts = new WindowCounts(() => 0);
    const Store = counts.asStore();
    const store = new Store();
    expect(store).toBe(counts);
    expect(store.child()).toBe(counts);
    const answers: unknown[] = [];
    store.incr('x', (error, result) => answers.push([error, result]), 60_000);
    counts.hit('x', 60_000);
    store.incr('x', (error, result) => answers.push([error, result]), 60_000);
    expect(answers).toEqual([
      [null, { current: 1, ttl: 60_000 }],
      [null, { current: 3, ttl: 60_000 }],
    ]);
  });

  it('holds at most its keys: ended windows go first, then the oldest, and a live key under the cap keeps its count', () => {
    let now = 0;
    const counts = new WindowCounts(() => now, 10);
    for (let key = 0; key < 5; key += 1) counts.hit(`short${key}`, 100);
    for (let key = 0; key < 5; key += 1) counts.hit(`long${key}`, 10_000);
    counts.hit('long4', 10_000);
    now = 200;
    // Full: the five ended windows go, and nothing else.
    expect(counts.hit('new0', 10_000).count).toBe(1);
    expect(counts.hit('long4', 10_000).count).toBe(3);
    for (let key = 1; key < 5; key += 1) counts.hit(`new${key}`, 10_000);
    // Full of live windows: the oldest go until a tenth is free.
    expect(counts.hit('newest', 10_000).count).toBe(1);
    expect(counts.hit('long0', 10_000).count).toBe(1);
    expect(counts.hit('long4', 10_000).count).toBe(4);
  });
});
