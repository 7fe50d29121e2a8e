import { describe, expect, it } from 'vitest';
import { backoffDelay, RECONNECT, RESEND } from './backoff';

describe('backoffDelay', () => {
  it('doubles from the base up to the ceiling (no jitter at the top of the range)', () => {
    const top = { ...RECONNECT, random: () => 1 };
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => backoffDelay(attempt, top))).toEqual([
      500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
  });

  it('jitters over the upper half of each step', () => {
    expect(backoffDelay(2, { ...RECONNECT, random: () => 0 })).toBe(1000);
    expect(backoffDelay(2, { ...RECONNECT, random: () => 0.5 })).toBe(1500);
    for (let attempt = 0; attempt < 12; attempt++) {
      const delay = backoffDelay(attempt, RESEND);
      expect(delay).toBeGreaterThanOrEqual(Math.min(RESEND.maxMs, RESEND.baseMs * 2 ** attempt) / 2);
      expect(delay).toBeLessThanOrEqual(RESEND.maxMs);
    }
  });

  it('survives absurd attempt numbers', () => {
    expect(backoffDelay(10_000, { ...RESEND, random: () => 1 })).toBe(RESEND.maxMs);
    expect(backoffDelay(-3, { ...RESEND, random: () => 1 })).toBe(RESEND.baseMs);
  });
});
