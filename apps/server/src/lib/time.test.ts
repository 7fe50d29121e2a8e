import { describe, expect, it } from 'vitest';
import { bound, dayBounds, dayOf, formatInZone, isTimeZone, timeRange } from './time.js';

describe('dayBounds', () => {
  it('spans a Shanghai day from 16:00 UTC the day before', () => {
    expect(dayBounds('2026-11-21', 'Asia/Shanghai')).toEqual({
      from: '2026-11-20T16:00:00.000Z',
      to: '2026-11-21T15:59:59.999Z',
    });
  });

  it('spans a Honolulu day into the next UTC day', () => {
    expect(dayBounds('2026-11-21', 'Pacific/Honolulu')).toEqual({
      from: '2026-11-21T10:00:00.000Z',
      to: '2026-11-22T09:59:59.999Z',
    });
  });

  it('gives the day the clocks go forward 23 hours, and the day they go back 25', () => {
    const spring = dayBounds('2026-03-29', 'Europe/Berlin');
    expect(spring).toEqual({ from: '2026-03-28T23:00:00.000Z', to: '2026-03-29T21:59:59.999Z' });
    expect(Date.parse(spring.to) + 1 - Date.parse(spring.from)).toBe(23 * 3600_000);
    const autumn = dayBounds('2026-10-25', 'Europe/Berlin');
    expect(autumn).toEqual({ from: '2026-10-24T22:00:00.000Z', to: '2026-10-25T22:59:59.999Z' });
  });

  it('starts a day whose midnight is skipped at the moment the clocks jump', () => {
    // Santiago moves from UTC-4 to UTC-3 at 00:00 local on 2026-09-06: that day begins at 01:00.
    expect(dayBounds('2026-09-06', 'America/Santiago').from).toBe('2026-09-06T04:00:00.000Z');
  });

  it('is the UTC day in UTC, across a month and a year end', () => {
    expect(dayBounds('2026-12-31', 'UTC')).toEqual({ from: '2026-12-31T00:00:00.000Z', to: '2026-12-31T23:59:59.999Z' });
  });

  it('refuses what is not a day', () => {
    expect(() => dayBounds('2026-11-21T00:00:00Z', 'UTC')).toThrow(RangeError);
  });
});

describe('bound', () => {
  it('takes a day as its first or last instant in the zone, and an instant as it is', () => {
    expect(bound('2026-11-21', 'from', 'Pacific/Honolulu')).toBe('2026-11-21T10:00:00.000Z');
    expect(bound('2026-11-21', 'to', 'Pacific/Honolulu')).toBe('2026-11-22T09:59:59.999Z');
    expect(bound('2026-11-21T08:00:00+08:00', 'to', 'Pacific/Honolulu')).toBe('2026-11-21T00:00:00.000Z');
    expect(bound(undefined, 'from', 'UTC')).toBeUndefined();
  });
});

describe('dayOf', () => {
  it('names the local day an instant falls on', () => {
    const instant = Date.parse('2026-11-22T09:30:00Z');
    expect(dayOf(instant, 'Pacific/Honolulu')).toBe('2026-11-21');
    expect(dayOf(instant, 'Asia/Shanghai')).toBe('2026-11-22');
  });
});

describe('isTimeZone', () => {
  it('knows IANA zones and nothing else', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});

describe('timeRange', () => {
  it('takes days whole and instants as given, as a half-open range', () => {
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

describe('formatInZone', () => {
  it('shows the wall clock of the zone', () => {
    expect(formatInZone('2026-11-22T09:30:00.000Z', 'Pacific/Honolulu')).toBe('2026-11-21 23:30:00');
    expect(formatInZone('2026-11-22T09:30:00.000Z', 'Asia/Shanghai')).toBe('2026-11-22 17:30:00');
  });
});
