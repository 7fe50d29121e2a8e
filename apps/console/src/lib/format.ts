import { i18n } from './i18n';
import type { Language } from './settings';

/**
 * Every date and time the console shows, in one language's format and the site's time zone (CONTRACT §7:
 * a day is a day where the site is, whatever the agent's machine says). 24-hour clock in both languages.
 */

/** The locale each language's dates and numbers are written in. */
export const LOCALES: Record<Language, string> = { zh: 'zh-CN', en: 'en-GB' };

const STYLES = {
  dateTime: { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' },
  date: { year: 'numeric', month: '2-digit', day: '2-digit' },
  time: { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' },
} satisfies Record<string, Intl.DateTimeFormatOptions>;
type Style = keyof typeof STYLES;

function browserTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** A zone the runtime knows, else undefined (an unknown zone would make every format call throw). */
function knownZone(zone: string | undefined): string | undefined {
  if (!zone) return undefined;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone;
  } catch {
    return undefined;
  }
}

let siteZone: string | undefined;

/** The site's zone from the user info; until the server names one (or names one unknown here), the browser's. */
export function setSiteTimeZone(zone: string | undefined): void {
  siteZone = knownZone(zone);
}

export function siteTimeZone(): string {
  return siteZone ?? browserTimeZone();
}

/** Formatters are costly to build and cheap to reuse: one per language, style and zone. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(style: Style, language: Language, zone: string): Intl.DateTimeFormat {
  const key = `${style} ${language} ${zone}`;
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(LOCALES[language], { ...STYLES[style], timeZone: zone });
    formatters.set(key, found);
  }
  return found;
}

export function currentLanguage(): Language {
  return i18n.language === 'en' ? 'en' : 'zh';
}

export function formatCount(value: number, language: Language = currentLanguage()): string {
  return new Intl.NumberFormat(LOCALES[language]).format(value);
}

/** An estimate, to three figures in the language's short form ("501万", "5.01m"): no more precise than it is. */
export function formatRoughCount(value: number, language: Language = currentLanguage()): string {
  return new Intl.NumberFormat(LOCALES[language], { notation: 'compact', maximumSignificantDigits: 3 }).format(value);
}

export interface FormatOptions {
  language?: Language;
  timeZone?: string;
}

function format(style: Style, value: string | number | Date | null | undefined, options: FormatOptions): string {
  if (value === null || value === undefined || value === '') return '';
  const date = value instanceof Date ? value : new Date(value);
  // Something that is not a date is shown as it came rather than as "Invalid Date".
  if (Number.isNaN(date.getTime())) return String(value);
  return formatter(style, options.language ?? currentLanguage(), options.timeZone ?? siteTimeZone()).format(date);
}

/** `2026/11/23 12:09:59` (zh) or `23/11/2026, 12:09:59` (en). */
export function formatDateTime(value: string | number | Date | null | undefined, options: FormatOptions = {}): string {
  return format('dateTime', value, options);
}

/** `2026/11/23` (zh) or `23/11/2026` (en). */
export function formatDate(value: string | number | Date | null | undefined, options: FormatOptions = {}): string {
  return format('date', value, options);
}

/** `12:09` in both languages. */
export function formatTime(value: string | number | Date | null | undefined, options: FormatOptions = {}): string {
  return format('time', value, options);
}

/** Whether two moments fall on the same day in the site's zone. */
export function sameSiteDay(a: string | number | Date, b: string | number | Date, options: FormatOptions = {}): boolean {
  return formatDate(a, { language: 'en', ...options }) === formatDate(b, { language: 'en', ...options });
}
