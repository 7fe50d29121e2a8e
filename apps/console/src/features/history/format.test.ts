import { describe, expect, it } from 'vitest';
import { conversationLength, exportRange, formatDuration } from './format';

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

describe('exportRange', () => {
  it('asks for the days picked, or the 366 up to the end picked or today', () => {
    expect(exportRange({}, '2026-11-24', 366)).toEqual({ from: '2025-11-24', to: '2026-11-24' });
    expect(exportRange({ to: '2024-03-01' }, '2026-11-24', 366)).toEqual({ from: '2023-03-02', to: '2024-03-01' });
    expect(exportRange({ from: '2026-06-01' }, '2026-11-24', 366)).toEqual({ from: '2026-06-01', to: '2026-11-24' });
    expect(exportRange({ from: '2026-01-01', to: '2026-01-31' }, '2026-11-24', 366)).toEqual({ from: '2026-01-01', to: '2026-01-31' });
  });

  it('refuses picked days that span more than the server takes', () => {
    expect(exportRange({ from: '2025-11-23', to: '2026-11-24' }, '2026-11-24', 366)).toBeNull();
    expect(exportRange({ from: '2020-01-01' }, '2026-11-24', 366)).toBeNull();
  });
});
