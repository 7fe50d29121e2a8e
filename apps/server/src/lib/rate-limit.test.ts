import { describe, expect, it } from 'vitest';
import { RateLimiter } from './rate-limit.js';

describe('RateLimiter', () => {
  it('allows a burst up to capacity, then refills over time', () => {
    const limiter = new RateLimiter(3, 1);
    expect([limiter.take('a', 0), limiter.take('a', 0), limiter.take('a', 0), limiter.take('a', 0)]).toEqual([true, true, true, false]);
    expect(limiter.take('b', 0)).toBe(true);
    expect(limiter.take('a', 500)).toBe(false);
    expect(limiter.take('a', 1000)).toBe(true);
    expect(limiter.take('a', 1000)).toBe(false);
    expect(limiter.take('a', 10_000)).toBe(true);
  });
});
