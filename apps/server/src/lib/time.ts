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

export function serverTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function wallClock(zone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

/** How far the zone's wall clock is ahead of UTC at this instant, in milliseconds. */
function zoneOffsetMs(zone: string, instant: number): number {
  const parts = wallClock(zone).formatToParts(new Date(instant));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((item) => item.type === type)?.value ?? 0);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wall - Math.floor(instant / 1000) * 1000;
}

/** The instant a `YYYY-MM-DD` day begins in the zone (its first moment, which a DST change may move). */
function dayStart(day: string, zone: string): number {
  const [year = 0, month = 1, date = 1] = day.split('-').map(Number);
  const midnightUtc = Date.UTC(year, month - 1, date);
  const guess = midnightUtc - zoneOffsetMs(zone, midnightUtc);
  // The offset at the guess may differ from the one at UTC midnight when a DST change falls in between.
  return midnightUtc - zoneOffsetMs(zone, guess);
}

/** A day of the site's calendar as instants: `start` inclusive, `end` (the next day's start) exclusive. */
export function dayBounds(day: string, zone: string): { start: string; end: string } {
  const next = new Date(`${day}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return {
    start: new Date(dayStart(day, zone)).toISOString(),
    end: new Date(dayStart(next.toISOString().slice(0, 10), zone)).toISOString(),
  };
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A `from`/`to` filter (CONTRACT §7: days in the site's zone, or ISO instants) as a half-open range of
 * stored times: `from` inclusive, `before` exclusive; a day as `to` includes the whole day.
 */
export function timeRange(from: string | undefined, to: string | undefined, zone: string): { from?: string; before?: string } {
  const range: { from?: string; before?: string } = {};
  if (from) range.from = DAY.test(from) ? dayBounds(from, zone).start : new Date(from).toISOString();
  if (to) range.before = DAY.test(to) ? dayBounds(to, zone).end : new Date(new Date(to).getTime() + 1).toISOString();
  return range;
}

/** An instant as the site's wall clock, `YYYY-MM-DD HH:mm:ss`: how exports show times to people. */
export function formatInZone(iso: string, zone: string): string {
  const parts = wallClock(zone).formatToParts(new Date(iso));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((item) => item.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')}`;
}
