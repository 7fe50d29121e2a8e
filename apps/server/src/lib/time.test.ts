import { describe, expect, it } from 'vitest';
import { dayBounds, isTimeZone, timeRange } from './time.js';

describe('dayBounds', () => {
  it('gives a day of the zone as UTC instants', () => {
    expect(dayBounds('2026-05-01', 'Pacific/Honolulu')).toEqual({ start: '2026-05-01T10:00:00.000Z', end: '2026-05-02T10:00:00.000Z' });
    expect(dayBounds('2026-05-01', 'Asia/Shanghai')).toEqual({ start: '2026-04-30T16:00:00.000Z', end: '2026-05-01T16:00:00.000Z' });
    expect(dayBounds('2026-12-31', 'UTC')).toEqual({ start: '2026-12-31T00:00:00.000Z', end: '2027-01-01T00:00:00.000Z' });
  });

  it('makes the days of a daylight-saving change 23 and 25 hours long', () => {
    const spring = dayBounds('2026-03-08', 'America/New_York');
    expect(spring).toEqual({ start: '2026-03-08T05:00:00.000Z', end: '2026-03-09T04:00:00.000Z' });
    const autumn = dayBounds('2026-11-01', 'America/New_York');
    expect(autumn).toEqual({ start: '2026-11-01T04:00:00.000Z', end: '2026-11-02T05:00:00.000Z' });
  });
});

describe('timeRange', () => {
  it('takes days whole and instants as given', () => {
    expect(timeRange('2026-05-01', '2026-05-03', 'Pacific/Honolulu')).toEqual({
      from: '2026-05-01T10:00:00.000Z',
      before: '2026-05-04T10:00:00.000Z',
    });
    expect(timeRange('2026-05-01T10:00:00+02:00', '2026-05-01T12:00:00Z', 'UTC')).toEqual({
      from: '2026-05-01T08:00:00.000Z',
      before: '2026-05-01T12:00:00.001Z',
    });
    expect(timeRange(undefined, undefined, 'UTC')).toEqual({});
  });
});

it('knows IANA zones', () => {
  expect(isTimeZone('Pacific/Honolulu')).toBe(true);
  expect(isTimeZone('Mars/Olympus')).toBe(false);
});
