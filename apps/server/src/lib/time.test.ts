import { describe, expect, it } from 'vitest';
import { dayBounds } from './time.js';

describe('dayBounds', () => {
  it('is the local day as UTC instants, the end excluded', () => {
    expect(dayBounds('2026-01-15', 'Pacific/Honolulu')).toEqual({ start: '2026-01-15T10:00:00.000Z', end: '2026-01-16T10:00:00.000Z' });
    expect(dayBounds('2026-01-15', 'Asia/Shanghai')).toEqual({ start: '2026-01-14T16:00:00.000Z', end: '2026-01-15T16:00:00.000Z' });
    expect(dayBounds('2026-12-31', 'UTC')).toEqual({ start: '2026-12-31T00:00:00.000Z', end: '2027-01-01T00:00:00.000Z' });
  });

  it('days across a daylight-saving change last 23 or 25 hours', () => {
    expect(dayBounds('2026-03-08', 'America/New_York')).toEqual({ start: '2026-03-08T05:00:00.000Z', end: '2026-03-09T04:00:00.000Z' });
    expect(dayBounds('2026-11-01', 'America/New_York')).toEqual({ start: '2026-11-01T04:00:00.000Z', end: '2026-11-02T05:00:00.000Z' });
    expect(dayBounds('2026-03-29', 'Europe/London')).toEqual({ start: '2026-03-29T00:00:00.000Z', end: '2026-03-29T23:00:00.000Z' });
  });
});
