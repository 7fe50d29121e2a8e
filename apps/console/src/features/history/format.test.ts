import { describe, expect, it } from 'vitest';
import { conversationLength, formatDuration } from './format';

describe('formatDuration', () => {
  it('reads like a clock', () => {
    expect(formatDuration(42_000)).toBe('0:42');
    expect(formatDuration(725_400)).toBe('12:05');
    expect(formatDuration(3_729_000)).toBe('1:02:09');
    expect(formatDuration(null)).toBe('');
    expect(formatDuration(-5)).toBe('');
  });

  it('gives an open conversation no length', () => {
    expect(conversationLength({ startedAt: '2026-05-01T10:00:00Z', endedAt: null })).toBeNull();
    expect(conversationLength({ startedAt: '2026-05-01T10:00:00Z', endedAt: '2026-05-01T10:03:00Z' })).toBe(180_000);
  });
});
