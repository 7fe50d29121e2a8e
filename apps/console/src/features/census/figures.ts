import { LOCALES } from '../../lib/format';
import type { Language } from '../../lib/settings';
import { formatDuration } from '../history/format';

/** The relative change from the previous period (0.25 = a quarter more); null when there is nothing to compare with. */
export function change(value: number | null, previous: number | null): number | null {
  if (value === null || previous === null) return null;
  if (previous === 0) return value === 0 ? 0 : null;
  return (value - previous) / previous;
}

/** A share (0..1) as a percentage with one decimal. */
export function formatShare(value: number, language: Language): string {
  return new Intl.NumberFormat(LOCALES[language], { style: 'percent', maximumFractionDigits: 1 }).format(value);
}

/** An average rating out of five, two decimals at most. */
export function formatScore(value: number): string {
  return (Math.round(value * 100) / 100).toFixed(2);
}

/** A median time to answer or a conversation's length, as a clock reads it. */
export function formatMs(value: number): string {
  return formatDuration(value) || '-';
}

/** Hours to one decimal, for time online: a week of seconds would not read. The chart's bars and the table's cells both use it, so they agree. */
export function hoursOf(ms: number): number {
  return Math.round(ms / 360_000) / 10;
}

export function formatHours(ms: number, language: Language): string {
  return new Intl.NumberFormat(LOCALES[language], { maximumFractionDigits: 1 }).format(hoursOf(ms));
}
