/** Times are stored as ISO 8601 UTC text so that SQLite and PostgreSQL compare them alike. */
export function isoNow(): string {
  return new Date().toISOString();
}

export function isoAfter(seconds: number, from = Date.now()): string {
  return new Date(from + seconds * 1000).toISOString();
}

export function isoBefore(seconds: number, from = Date.now()): string {
  return new Date(from - seconds * 1000).toISOString();
}

/** How far the wall clock of `timeZone` is ahead of UTC at `instant` (ms; negative west of Greenwich). */
function zoneOffsetMs(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((item) => item.type === type)?.value ?? 0);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wall - Math.floor(instant / 1000) * 1000;
}

/** The instant the wall clock of `timeZone` reads midnight starting that calendar day (month 1-based). */
function midnightIn(year: number, month: number, day: number, timeZone: string): number {
  const wall = Date.UTC(year, month - 1, day);
  // The offset at the guess may differ from the one at the answer across a DST change: look twice.
  const guess = wall - zoneOffsetMs(wall, timeZone);
  return wall - zoneOffsetMs(guess, timeZone);
}

/**
 * A `YYYY-MM-DD` day in a time zone as UTC instants: `start` (its first instant) and `end` (the first
 * instant of the next day, excluded). Stored times are ISO UTC text, so these compare with them directly.
 */
export function dayBounds(day: string, timeZone: string): { start: string; end: string } {
  const [year = 0, month = 0, date = 0] = day.split('-').map(Number);
  return {
    start: new Date(midnightIn(year, month, date, timeZone)).toISOString(),
    end: new Date(midnightIn(year, month, date + 1, timeZone)).toISOString(),
  };
}
