import type { Lang, Translate } from './lib/i18n';

const MINUTE = 60_000;

/** Clock time of a message, e.g. 14:05. */
export function clock(iso: string, lang: Lang): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return date.toLocaleTimeString(lang === 'zh' ? 'zh-CN' : 'en-GB', { hour: '2-digit', minute: '2-digit' });
}

/** The separator shown above a message that comes long after the previous one. */
export function dayStamp(iso: string, lang: Lang, t: Translate, now = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const time = clock(iso, lang);
  if (date.getTime() >= startOfToday) return `${t('today')} ${time}`;
  if (date.getTime() >= startOfToday - 86_400_000) return `${t('yesterday')} ${time}`;
  const day = date.toLocaleDateString(lang === 'zh' ? 'zh-CN' : 'en-GB', { month: 'short', day: 'numeric' });
  return `${day} ${time}`;
}

/** Whether two messages are far enough apart in time for a separator between them. */
export function farApart(previous: string | undefined, next: string): boolean {
  if (!previous) return true;
  return new Date(next).getTime() - new Date(previous).getTime() > 5 * MINUTE;
}
