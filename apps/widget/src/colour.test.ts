import { describe, expect, it } from 'vitest';
import { DEFAULT_COLOUR, safeColor } from './colour';

describe('safeColor', () => {
  it('lets only hex colours into CSS', () => {
    expect(safeColor('#ff0000')).toBe('#ff0000');
    expect(safeColor('#F0a')).toBe('#F0a');
    expect(safeColor('red;background:url(x)')).toBe(DEFAULT_COLOUR);
    expect(safeColor('#ff00001')).toBe(DEFAULT_COLOUR);
    expect(safeColor('')).toBe(DEFAULT_COLOUR);
  });
});
