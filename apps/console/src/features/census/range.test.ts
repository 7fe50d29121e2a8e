import { describe, expect, it } from 'vitest';
import { addDays, clampRange, dayIn, presetRange, previousRange, rangeLength } from './range';

describe('census date ranges', () => {
  it('counts today in the site zone, not the machine’s', () => {
    const moment = new Date('2026-03-01T17:30:00Z');
    expect(dayIn('Asia/Shanghai', moment)).toBe('2026-03-02');
    expect(dayIn('America/Los_Angeles', moment)).toBe('2026-03-01');
  });

  it('moves days across month ends, leap days and daylight changes', () => {
    expect(addDays('2028-03-01', -1)).toBe('2028-02-29');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-29', -1)).toBe('2026-03-28');
  });

  it('turns each preset into a range ending today or yesterday', () => {
    expect(presetRange('today', '2026-03-02')).toEqual({ from: '2026-03-02', to: '2026-03-02' });
    expect(presetRange('yesterday', '2026-03-01')).toEqual({ from: '2026-02-28', to: '2026-02-28' });
    expect(presetRange('last7', '2026-03-02')).toEqual({ from: '2026-02-24', to: '2026-03-02' });
    expect(rangeLength(presetRange('last30', '2026-03-02'))).toBe(30);
  });

  it('compares with the period of the same length just before', () => {
    expect(previousRange({ from: '2026-02-24', to: '2026-03-02' })).toEqual({ from: '2026-02-17', to: '2026-02-23' });
    expect(previousRange({ from: '2026-03-02', to: '2026-03-02' })).toEqual({ from: '2026-03-01', to: '2026-03-01' });
  });

  it('orders, caps at today and shortens a custom range the server would refuse', () => {
    expect(clampRange({ from: '2026-03-05', to: '2026-02-01' }, '2026-03-02')).toEqual({ from: '2026-02-01', to: '2026-03-02' });
    expect(clampRange({ from: '2026-04-01', to: '2026-04-05' }, '2026-03-02')).toEqual({ from: '2026-03-02', to: '2026-03-02' });
    expect(rangeLength(clampRange({ from: '2020-01-01', to: '2026-03-02' }, '2026-03-02'))).toBe(366);
  });
});
