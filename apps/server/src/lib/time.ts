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

const DAY_MS = 86_400_000;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The zone the process runs in: the site's zone unless SITE_TIMEZONE says otherwise. */
export function serverTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Whether `timeZone` is an IANA zone this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function wallClock(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The local wall-clock time of an instant, as if that wall time were UTC (milliseconds since the epoch). */
function wallTime(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of wallClock(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  return Date.UTC(year, month - 1, day, hour, minute, second) + (instant - Math.floor(instant / 1000) * 1000);
}

function offsetAt(instant: number, timeZone: string): number {
  return wallTime(instant, timeZone) - instant;
}

/**
 * The first instant at which the local clock reads `wall` (a wall time expressed as UTC milliseconds). When
 * the clocks go back over it, the earlier of the two; when they skip it, the moment they skip.
 */
function firstInstantOf(wall: number, timeZone: string): number {
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  const candidates = [wall - before, wall - after].filter((instant) => wallTime(instant, timeZone) === wall);
  // No candidate reads `wall`: the clocks jumped over it, at the instant the old offset reached it.
  return candidates.length > 0 ? Math.min(...candidates) : wall - before;
}

/**
 * The instants a local day spans in `timeZone`: `from` is its first millisecond and `to` its last, so a
 * filter compares `from <= t <= to`. Days of 23 or 25 hours (daylight-saving changes) come out right.
 */
export function dayBounds(day: string, timeZone: string): { from: string; to: string } {
  const match = DAY.exec(day);
  if (!match) throw new RangeError(`not a day: ${day}`);
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const start = firstInstantOf(Date.UTC(year, month - 1, date), timeZone);
  const next = firstInstantOf(Date.UTC(year, month - 1, date + 1), timeZone);
  return { from: new Date(start).toISOString(), to: new Date(next - 1).toISOString() };
}

/**
 * One end of a date filter (CONTRACT §7): a `YYYY-MM-DD` day in the site's zone means the whole day (its
 * first instant as `from`, its last as `to`); an ISO 8601 instant is taken as it is.
 */
export function bound(value: string, end: 'from' | 'to', timeZone: string): string;
export function bound(value: string | undefined, end: 'from' | 'to', timeZone: string): string | undefined;
export function bound(value: string | undefined, end: 'from' | 'to', timeZone: string): string | undefined {
  if (!value) return undefined;
  if (DAY.test(value)) return dayBounds(value, timeZone)[end];
  return new Date(value).toISOString();
}

/** The local day (`YYYY-MM-DD`) an instant falls on in `timeZone`. */
export function dayOf(instant: number, timeZone: string): string {
  return new Date(wallTime(instant, timeZone)).toISOString().slice(0, 10);
}

/**
 * A `from`/`to` filter as a half-open range of stored times: `from` inclusive, `before` exclusive, so a
 * keyset query can page with `<`. A day as `to` includes the whole day.
 */
export function timeRange(from: string | undefined, to: string | undefined, timeZone: string): { from?: string; before?: string } {
  const range: { from?: string; before?: string } = {};
  if (from) range.from = bound(from, 'from', timeZone);
  if (to) range.before = new Date(Date.parse(bound(to, 'to', timeZone)) + 1).toISOString();
  return range;
}

/** An instant as the site's wall clock, `YYYY-MM-DD HH:mm:ss`: how exports show times to people. */
export function formatInZone(iso: string, timeZone: string): string {
  return new Date(wallTime(Date.parse(iso), timeZone)).toISOString().slice(0, 19).replace('T', ' ');
}

/** Minutes the site's clock is ahead of UTC at an instant (negative west of Greenwich). */
export function utcOffsetMinutes(instant: number, timeZone: string): number {
  return Math.round(offsetAt(instant, timeZone) / 60_000);
}
