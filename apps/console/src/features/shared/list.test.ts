import { beforeAll, describe, expect, it } from 'vitest';
import { changeLanguage, initI18n } from '../../lib/i18n';
import { totalText } from './list';

describe('a list’s total in the pager', () => {
  beforeAll(() => initI18n('zh'));

  it('is a count, "more than" a keyword’s bound, or "about" an estimate to three figures, in each language', async () => {
    await changeLanguage('zh');
    expect(totalText(42, { more: false })).toBe('共 42 条');
    expect(totalText(1000, { more: true })).toBe('超过 1000 条');
    expect(totalText(5_009_390, { estimated: true })).toBe('约 501万 条');
    expect(totalText(100_050, { estimated: true })).toBe('约 10万 条');
    await changeLanguage('en');
    expect(totalText(42, undefined)).toBe('42 in total');
    expect(totalText(1000, { more: true })).toBe('More than 1000');
    expect(totalText(5_009_390, { estimated: true })).toBe('About 5.01m');
    expect(totalText(100_050, { estimated: true })).toBe('About 100k');
  });
});
