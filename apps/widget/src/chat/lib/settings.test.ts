import { MAX_MESSAGE_LENGTH } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { TEXTS } from './i18n';
import { isMessage, normalizeSettings } from './settings';
import { widgetSettings } from './settings.fixture';

describe('normalizeSettings', () => {
  it('takes the settings as the server projected them', () => {
    const sent = widgetSettings({ color: '#ff0000', online: false, maxLength: 200 });
    expect(normalizeSettings(sent)).toEqual(sent);
  });

  it('refuses a colour that is not a hex colour (it ends up in CSS)', () => {
    expect(normalizeSettings(widgetSettings({ color: 'red;background:url(x)' })).color).toBe('#1677ff');
  });

  it('keeps the composer limit within what the server accepts', () => {
    expect(normalizeSettings(widgetSettings({ maxLength: 10 ** 9 })).maxLength).toBe(MAX_MESSAGE_LENGTH);
    expect(normalizeSettings(widgetSettings({ maxLength: 0 })).maxLength).toBe(MAX_MESSAGE_LENGTH);
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
