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
