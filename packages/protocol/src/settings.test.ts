import { describe, expect, it } from 'vitest';
import { inkOn } from './contrast.js';
import { type AllSettings, SETTINGS_PAGES, type SettingsInput, settingsDefaults, settingsSchemas, toWidgetSettings } from './settings.js';

/** The defaults with the given pages parsed from what a client would send. */
function pagesWith(sent: { [P in keyof AllSettings]?: SettingsInput<P> }): AllSettings {
  const pages: AllSettings = { ...settingsDefaults };
  for (const page of SETTINGS_PAGES) {
    const value = sent[page];
    if (value !== undefined) Object.assign(pages, { [page]: settingsSchemas[page].parse(value) });
  }
  return pages;
}

/** Monday 2026-11-23 at the given UTC hour. */
const mondayAt = (hourUtc: number) => new Date(Date.UTC(2026, 10, 23, hourUtc, 0));

describe('settings pages', () => {
  it('parse an empty page into its defaults, and the defaults parse again unchanged', () => {
    for (const page of SETTINGS_PAGES) {
      const defaults = settingsSchemas[page].parse({});
      expect(defaults, page).toEqual(settingsDefaults[page]);
      expect(settingsSchemas[page].parse(defaults), page).toEqual(defaults);
    }
    expect(settingsDefaults.windowStyle.color).toBe('#1677ff');
    expect(settingsDefaults.softwareSetting.smtp).toBeNull();
    expect(settingsDefaults.appSetting.allowedOrigins).toEqual([]);
  });

  it('refuse an invalid field, naming its path', () => {
    const badColour = settingsSchemas.takeIcon.safeParse({ pc: { color: 'red' } });
    expect(badColour.success).toBe(false);
    expect(badColour.error?.issues[0]?.path).toEqual(['pc', 'color']);

    const badDay = settingsSchemas.windowSetting.safeParse({ workHours: { days: [{ day: 7, from: '09:00', to: '18:00' }] } });
    expect(badDay.error?.issues[0]?.path).toEqual(['workHours', 'days', 0, 'day']);

    const badOrigin = settingsSchemas.appSetting.safeParse({ allowedOrigins: ['javascript:alert(1)'] });
    expect(badOrigin.error?.issues[0]?.path).toEqual(['allowedOrigins', 0]);

    const badLogo = settingsSchemas.softwareSetting.safeParse({ logo: '//evil.example/x.png' });
    expect(badLogo.error?.issues[0]?.path).toEqual(['logo']);

    const requiredNotShown = settingsSchemas.windowSetting.safeParse({ letter: { fields: ['name'], required: ['email'] } });
    expect(requiredNotShown.error?.issues[0]?.path).toEqual(['letter', 'required']);
  });

  it('keep allowed origins as a browser sends them', () => {
    const parsed = settingsSchemas.appSetting.parse({ allowedOrigins: ['HTTPS://Shop.Example.com/', 'http://localhost:8080'] });
    expect(parsed.allowedOrigins).toEqual(['https://shop.example.com', 'http://localhost:8080']);
  });
});

describe('toWidgetSettings', () => {
  it('hands the loader colours its white labels read on at 4.5:1, darkening only what needs it', () => {
    const pages = pagesWith({
      takeIcon: {
        pc: { ...settingsDefaults.takeIcon.pc, color: '#13c2c2' },
        mobile: { ...settingsDefaults.takeIcon.mobile, color: '#722ed1' },
      },
      floatNavigation: { ...settingsDefaults.floatNavigation, color: '#faad14' },
    });
    const widget = toWidgetSettings(pages, { lang: 'en', online: true });
    expect(widget.launcher.pc.color).toBe(inkOn('#13c2c2'));
    expect(widget.launcher.pc.color).not.toBe('#13c2c2');
    // Purple already reads: untouched.
    expect(widget.launcher.mobile.color).toBe('#722ed1');
    expect(widget.floatNavigation.color).toBe(inkOn('#faad14'));
    expect(toWidgetSettings(settingsDefaults, { lang: 'en', online: true }).launcher.pc.color).toBe(
      inkOn(settingsDefaults.takeIcon.pc.color),
    );
  });

  it('gives the defaults in the visitor language', () => {
    const zh = toWidgetSettings(settingsDefaults, { lang: 'zh', online: true });
    const en = toWidgetSettings(settingsDefaults, { lang: 'en', online: true });
    expect(zh.title).toBe('在线客服');
    expect(en.title).toBe('Chat with us');
    expect(en.online).toBe(true);
    expect(en.upload).toMatchObject({ enabled: true, maxBytes: 10 * 1024 * 1024 });
    expect(en.region).toEqual({ blocked: false, text: '' });
  });

  it('is offline with the offline text outside the work hours, online inside', () => {
    const pages = pagesWith({
      windowSetting: {
        workHours: { enabled: true, timezone: 'Asia/Shanghai', days: [{ day: 1, from: '09:00', to: '18:00' }], offlineText: 'closed now' },
      },
    });
    // 02:00 UTC is 10:00 in Shanghai, 12:00 UTC is 20:00.
    const inside = toWidgetSettings(pages, { lang: 'en', online: true, now: mondayAt(2) });
    expect(inside.online).toBe(true);
    expect(inside.workHours).toEqual({ enabled: true, open: true, offlineText: '' });
    const outside = toWidgetSettings(pages, { lang: 'en', online: true, now: mondayAt(12) });
    expect(outside.online).toBe(false);
    expect(outside.workHours).toEqual({ enabled: true, open: false, offlineText: 'closed now' });
  });

  it('gives the widget the site’s zone: the software page’s, else the server’s; the work hours’ own zone does not move it', () => {
    const pages = pagesWith({ windowSetting: { workHours: { enabled: false, timezone: 'Europe/Paris', days: [], offlineText: '' } } });
    expect(toWidgetSettings(pages, { lang: 'en', online: true, siteTimeZone: 'Pacific/Honolulu' }).timeZone).toBe('Pacific/Honolulu');
    const named = pagesWith({ softwareSetting: { timezone: 'Asia/Shanghai' } });
    expect(toWidgetSettings(named, { lang: 'en', online: true, siteTimeZone: 'Pacific/Honolulu' }).timeZone).toBe('Asia/Shanghai');
    expect(toWidgetSettings(settingsDefaults, { lang: 'en', online: true }).timeZone).toBe('UTC');
  });

  it('blocks a visitor whose region a block rule names, and tips one a tip rule names', () => {
    const pages = pagesWith({
      region: {
        rules: [
          { codes: ['110000'], action: 'block', text: 'not here' },
          { codes: ['310000'], action: 'tip', text: 'welcome, Shanghai' },
          { codes: ['440000'], action: 'block' },
        ],
      },
    });
    const blocked = toWidgetSettings(pages, { lang: 'en', online: true, region: ['110000', '110100'] });
    expect(blocked.region).toEqual({ blocked: true, text: 'not here' });
    expect(blocked.online).toBe(false);
    expect(toWidgetSettings(pages, { lang: 'en', online: true, region: ['440000'] }).region).toEqual({
      blocked: true,
      text: 'Sorry, online chat is not available in your region.',
    });
    const tipped = toWidgetSettings(pages, { lang: 'zh', online: true, region: ['310000'] });
    expect(tipped).toMatchObject({ online: true, region: { blocked: false, text: 'welcome, Shanghai' } });
    expect(toWidgetSettings(pages, { lang: 'zh', online: true, region: ['LAN'] }).region.blocked).toBe(false);
  });

  it('turns uploads off and caps their size from the pages', () => {
    const pages = pagesWith({ appSetting: { visitorUploads: false }, softwareSetting: { uploadMaxMB: 2 } });
    expect(toWidgetSettings(pages, { lang: 'zh', online: false }).upload).toEqual({ enabled: false, maxBytes: 2 * 1024 * 1024, types: [] });
  });
});
