/** A length of time as a clock reads it: `0:42`, `12:05`, `1:02:09`; empty when unknown. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '';
  const total = Math.round(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/** How long a conversation lasted; one still open has no length yet. */
export function conversationLength(conversation: { startedAt: string; endedAt: string | null }): number | null {
  if (!conversation.endedAt) return null;
  return Date.parse(conversation.endedAt) - Date.parse(conversation.startedAt);
}

const DAY_MS = 86_400_000;
const shiftDay = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/**
 * The days an export asks for (`YYYY-MM-DD`, both ends included): the ones picked, ending today when no
 * end is picked and starting `maxDays` days before the end when no start is; null when the picked days
 * span more than `maxDays`, which the server refuses.
 */
export function exportRange(
  picked: { from?: string | undefined; to?: string | undefined },
  today: string,
  maxDays: number,
): { from: string; to: string } | null {
  const to = picked.to ?? today;
  const from = picked.from ?? shiftDay(to, 1 - maxDays);
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  return days > maxDays ? null : { from, to };
}
