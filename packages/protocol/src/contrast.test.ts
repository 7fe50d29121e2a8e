import { describe, expect, it } from 'vitest';
import { inkOn } from './contrast';

describe('inkOn', () => {
  it('keeps a colour white text already reads on', () => {
    expect(inkOn('#0958d9')).toBe('#0958d9');
  });
  it('darkens a light theme colour until white text on it reads at 4.5:1', () => {
    expect(inkOn('#1677ff')).not.toBe('#1677ff');
    expect(inkOn('#ffffff')).toMatch(/^#[0-9a-f]{6}$/);
    expect(inkOn('#ffd400')).toMatch(/^#[0-9a-f]{6}$/);
  });
  it('leaves what is not #rrggbb as given', () => {
    expect(inkOn('red')).toBe('red');
  });
});
