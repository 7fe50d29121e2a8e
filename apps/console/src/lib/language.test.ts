import { describe, expect, it } from 'vitest';
import { startLanguage } from './language';

describe('startLanguage', () => {
  it('starts an English browser in English when the user never chose', () => {
    expect(startLanguage(null, ['en-US', 'en'])).toBe('en');
    expect(startLanguage(null, ['en-GB'])).toBe('en');
  });

  it('starts a Chinese browser in Chinese, whatever the region or script', () => {
    expect(startLanguage(null, ['zh-CN', 'zh'])).toBe('zh');
    expect(startLanguage(null, ['zh-TW'])).toBe('zh');
    expect(startLanguage(null, ['zh_Hant_HK'])).toBe('zh');
  });

  it('takes the first preferred language the console speaks', () => {
    expect(startLanguage(null, ['fr-FR', 'en-US', 'zh-CN'])).toBe('en');
    expect(startLanguage(null, ['de', 'zh-CN', 'en'])).toBe('zh');
  });

  it('falls back to Chinese, the default, for a browser that prefers neither or says nothing', () => {
    expect(startLanguage(null, ['fr-FR', 'de'])).toBe('zh');
    expect(startLanguage(null, [])).toBe('zh');
  });

  it('keeps a choice the user made over the browser', () => {
    expect(startLanguage('zh', ['en-US'])).toBe('zh');
    expect(startLanguage('en', ['zh-CN'])).toBe('en');
  });

  it('ignores a stored value that is not a language the console speaks', () => {
    expect(startLanguage('fr', ['en-US'])).toBe('en');
    expect(startLanguage('', ['zh-CN'])).toBe('zh');
  });
});
