import { describe, expect, it } from 'vitest';
import { rankingOption, topSlices } from './charts';
import { change, formatHours, formatScore, formatShare, hoursOf } from './figures';

describe('census figures', () => {
  it('compares with the previous period only where there is something to compare', () => {
    expect(change(150, 100)).toBe(0.5);
    expect(change(50, 100)).toBe(-0.5);
    expect(change(0, 0)).toBe(0);
    expect(change(3, 0)).toBeNull();
    expect(change(null, 4)).toBeNull();
    expect(change(4, null)).toBeNull();
  });

  it('writes shares, ratings and hours for each language', () => {
    expect(formatShare(0.1234, 'en')).toBe('12.3%');
    expect(formatScore(4.666)).toBe('4.67');
    expect(formatHours(5_400_000, 'zh')).toBe('1.5');
    expect(formatHours(36_000_000_000, 'en')).toBe('10,000');
  });

  it('rounds hours the same way for the chart and the table', () => {
    expect(hoursOf(5_400_000)).toBe(1.5);
    expect(hoursOf(3_780_000)).toBe(1.1);
    expect(formatHours(3_780_000, 'en')).toBe(String(hoursOf(3_780_000)));
  });
});

describe('census charts', () => {
  const slices = Array.from({ length: 14 }, (_, i) => ({ name: `v${i}`, value: i + 1 }));

  it('keeps the largest values of a pie and sums the rest, so it still adds up', () => {
    const top = topSlices(slices, 'Others');
    expect(top).toHaveLength(10);
    expect(top[0]).toEqual({ name: 'v13', value: 14 });
    expect(top.at(-1)).toEqual({ name: 'Others', value: 1 + 2 + 3 + 4 + 5 }); // v0..v4
    expect(top.reduce((sum, slice) => sum + slice.value, 0)).toBe(slices.reduce((sum, slice) => sum + slice.value, 0));
  });

  it('ranks the ten largest values, largest first, leaving out zeros', () => {
    const option = rankingOption([...slices, { name: 'none', value: 0 }], 'Visitors') as { yAxis: { data: string[] } };
    expect(option.yAxis.data).toHaveLength(10);
    expect(option.yAxis.data[0]).toBe('v13');
    expect(option.yAxis.data).not.toContain('none');
  });
});
