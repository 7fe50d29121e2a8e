import { describe, expect, it } from 'vitest';
import { TEXTS } from './i18n';
import { DEFAULT_SETTINGS, isMessage, normalizeSettings } from './settings';

describe('normalizeSettings', () => {
  it('fills whatever the server left out from the defaults', () => {
    expect(normalizeSettings(undefined)).toEqual(DEFAULT_SETTINGS);
    const settings = normalizeSettings({ color: '#ff0000', online: false, letter: { fields: ['email', 'fax'] } });
    expect(settings.color).toBe('#ff0000');
    expect(settings.online).toBe(false);
    expect(settings.letter.fields).toEqual(['email']);
    expect(settings.upload).toEqual(DEFAULT_SETTINGS.upload);
  });

  it('refuses a colour that is not a hex colour (it ends up in CSS)', () => {
    expect(normalizeSettings({ color: 'red;background:url(x)' }).color).toBe(DEFAULT_SETTINGS.color);
  });
});

describe('isMessage', () => {
  it('accepts the contract shape and refuses others', () => {
    expect(isMessage({ seq: 1, onlyID: 'a', msg: 'hi', role: 'service', type: 'text' })).toBe(true);
    expect(isMessage({ seq: '1', onlyID: 'a', msg: 'hi', role: 'service', type: 'text' })).toBe(false);
    expect(isMessage(null)).toBe(false);
  });
});

describe('shared limits and texts', () => {
  it('has every text in both languages, with the same placeholders', () => {
    for (const [key, text] of Object.entries(TEXTS.en)) {
      const zh = TEXTS.zh[key as keyof typeof TEXTS.en];
      expect(zh, key).toBeTruthy();
      expect(zh.match(/\{\w+\}/g) ?? [], key).toEqual(text.match(/\{\w+\}/g) ?? []);
    }
  });
});
