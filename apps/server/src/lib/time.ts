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
