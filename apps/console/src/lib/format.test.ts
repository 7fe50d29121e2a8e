import { afterEach, describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatTime, sameSiteDay, setSiteTimeZone, siteTimeZone } from './format';

// 2026-11-23 04:09:59 UTC: Shanghai is already at noon, Honolulu still on the evening before.
const MOMENT = '2026-11-23T04:09:59.000Z';
const SHANGHAI = 'Asia/Shanghai';
const HONOLULU = 'Pacific/Honolulu';

afterEach(() => setSiteTimeZone(undefined));

describe('formatDateTime', () => {
  it('shows the moment in Shanghai in both languages, on a 24-hour clock', () => {
    expect(formatDateTime(MOMENT, { language: 'zh', timeZone: SHANGHAI })).toBe('2026/11/23 12:09:59');
    expect(formatDateTime(MOMENT, { language: 'en', timeZone: SHANGHAI })).toBe('23/11/2026, 12:09:59');
  });

  it('shows the same moment in Honolulu on the day before', () => {
    expect(formatDateTime(MOMENT, { language: 'zh', timeZone: HONOLULU })).toBe('2026/11/22 18:09:59');
    expect(formatDateTime(MOMENT, { language: 'en', timeZone: HONOLULU })).toBe('22/11/2026, 18:09:59');
  });

  it('uses the site zone once the user info names one', () => {
    setSiteTimeZone(HONOLULU);
    expect(siteTimeZone()).toBe(HONOLULU);
    expect(formatDateTime(MOMENT, { language: 'en' })).toBe('22/11/2026, 18:09:59');
    setSiteTimeZone(SHANGHAI);
    expect(formatDateTime(MOMENT, { language: 'en' })).toBe('23/11/2026, 12:09:59');
  });

  it('falls back to the browser zone when the site names none or an unknown one', () => {
    const browser = new Intl.DateTimeFormat().resolvedOptions().timeZone;
    setSiteTimeZone('Mars/Olympus_Mons');
    expect(siteTimeZone()).toBe(browser);
    setSiteTimeZone(undefined);
    expect(siteTimeZone()).toBe(browser);
  });

  it('shows what is not a date as it came, and nothing for nothing', () => {
    expect(formatDateTime('soon', { language: 'en', timeZone: SHANGHAI })).toBe('soon');
    expect(formatDateTime('', { language: 'en', timeZone: SHANGHAI })).toBe('');
    expect(formatDateTime(null, { language: 'en', timeZone: SHANGHAI })).toBe('');
  });
});

describe('formatDate and formatTime', () => {
  it('give the day and the clock of the site zone in both languages', () => {
    expect(formatDate(MOMENT, { language: 'zh', timeZone: SHANGHAI })).toBe('2026/11/23');
    expect(formatDate(MOMENT, { language: 'en', timeZone: SHANGHAI })).toBe('23/11/2026');
    expect(formatDate(MOMENT, { language: 'zh', timeZone: HONOLULU })).toBe('2026/11/22');
    expect(formatDate(MOMENT, { language: 'en', timeZone: HONOLULU })).toBe('22/11/2026');
    expect(formatTime(MOMENT, { language: 'zh', timeZone: SHANGHAI })).toBe('12:09');
    expect(formatTime(MOMENT, { language: 'en', timeZone: SHANGHAI })).toBe('12:09');
    expect(formatTime(MOMENT, { language: 'zh', timeZone: HONOLULU })).toBe('18:09');
    expect(formatTime(MOMENT, { language: 'en', timeZone: HONOLULU })).toBe('18:09');
  });

  it('shows midnight as 00, not 24', () => {
    expect(formatTime('2026-11-22T16:00:00Z', { language: 'en', timeZone: SHANGHAI })).toBe('00:00');
    expect(formatTime('2026-11-22T16:00:00Z', { language: 'zh', timeZone: SHANGHAI })).toBe('00:00');
  });

  it('tells whether two moments share a day where the site is', () => {
    const evening = '2026-11-23T10:00:00Z';
    expect(sameSiteDay(MOMENT, evening, { timeZone: SHANGHAI })).toBe(true);
    // In Honolulu the first is the 22nd's evening, the second the 23rd's midnight.
    expect(sameSiteDay(MOMENT, evening, { timeZone: HONOLULU })).toBe(false);
  });
});
