import { DEFAULT_CENSUS_DAYS, MAX_CENSUS_DAYS } from '@parley/protocol';

/**
 * The statistics' date ranges: calendar days (`YYYY-MM-DD`) in the site's time zone, both ends included
 * (CONTRACT §7, §9). Pure functions over day strings, so a preset means the same day wherever the agent is.
 */

export const PRESETS = ['today', 'yesterday', 'last7', 'last30', 'custom'] as const;
export type Preset = (typeof PRESETS)[number];

export interface DayRange {
  from: string;
  to: string;
}

/** The calendar day a moment falls on in a zone. */
export function dayIn(zone: string, now: Date): string {
  // en-CA writes dates as YYYY-MM-DD, the form the server reads.
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** A day moved by whole days; computed at noon UTC so no zone or daylight change can shift it. */
export function addDays(day: string, days: number): string {
  const moment = new Date(`${day}T12:00:00Z`);
  moment.setUTCDate(moment.getUTCDate() + days);
  return moment.toISOString().slice(0, 10);
}

/** How many days a range covers, both ends counted. */
export function rangeLength(range: DayRange): number {
  return Math.round((Date.parse(`${range.to}T12:00:00Z`) - Date.parse(`${range.from}T12:00:00Z`)) / 86_400_000) + 1;
}

/** The range a preset names, given today in the site's zone; `custom` keeps the last seven days until one is picked. */
export function presetRange(preset: Preset, today: string): DayRange {
  switch (preset) {
    case 'today':
      return { from: today, to: today };
    case 'yesterday': {
      const yesterday = addDays(today, -1);
      return { from: yesterday, to: yesterday };
    }
    case 'last30':
      return { from: addDays(today, -29), to: today };
    default:
      return { from: addDays(today, -(DEFAULT_CENSUS_DAYS - 1)), to: today };
  }
}

/** The period of equal length just before a range, the one the server compares against. */
export function previousRange(range: DayRange): DayRange {
  const length = rangeLength(range);
  return { from: addDays(range.from, -length), to: addDays(range.from, -1) };
}

/**
 * A picked custom range made acceptable to the server: ends in order, nothing after today, no longer
 * than the longest range one call covers (the start moves, the end the user chose stays).
 */
export function clampRange(range: DayRange, today: string): DayRange {
  let { from, to } = range.from <= range.to ? range : { from: range.to, to: range.from };
  if (to > today) to = today;
  if (from > to) from = to;
  if (rangeLength({ from, to }) > MAX_CENSUS_DAYS) from = addDays(to, -(MAX_CENSUS_DAYS - 1));
  return { from, to };
}
