import type { Message } from '@parley/protocol';

/**
 * A message as the chat window holds it. A message typed here lives locally (seq 0) with its client
 * onlyID until the server answers with the stored copy, which replaces it.
 */
export interface ChatItem extends Message {
  /** Only on local messages: absent once the server has stored it. */
  status?: 'sending' | 'failed';
  /** Why the last attempt failed, shown beside the retry control. */
  error?: string;
  /** A local preview of an image being uploaded (an object URL). */
  preview?: string;
  /** The size of a local file not yet uploaded, shown in its card. */
  size?: number;
}

/**
 * Merges what arrived (a push, a catch-up page, an HTTP answer) into what is held. The onlyID is the
 * identity: a stored copy replaces a local one, a later stored copy refreshes an earlier one (a withdrawal
 * sticks), and two stored messages never share a seq. Stored messages come in seq order, then local
 * ones in the order they were typed.
 */
export function mergeMessages(held: readonly ChatItem[], incoming: readonly ChatItem[]): ChatItem[] {
  const byOnlyId = new Map<string, ChatItem>();
  for (const item of held) byOnlyId.set(item.onlyID, item);
  for (const item of incoming) {
    const previous = byOnlyId.get(item.onlyID);
    if (!previous) byOnlyId.set(item.onlyID, item);
    else if (item.seq > 0) byOnlyId.set(item.onlyID, { ...item, withdrawn: item.withdrawn || previous.withdrawn });
    else if (previous.seq === 0) byOnlyId.set(item.onlyID, item);
  }
  const stored: ChatItem[] = [];
  const local: ChatItem[] = [];
  for (const item of byOnlyId.values()) (item.seq > 0 ? stored : local).push(item);
  stored.sort((a, b) => a.seq - b.seq);
  const unique = stored.filter((item, index) => index === 0 || stored[index - 1]?.seq !== item.seq);
  return [...unique, ...local];
}

/** The highest seq held: what a catch-up asks for after. */
export function lastSeq(items: readonly ChatItem[]): number {
  let max = 0;
  for (const item of items) if (item.seq > max) max = item.seq;
  return max;
}

/**
 * The seq up to which nothing is missing: the end of the unbroken run that starts at the oldest message
 * held. A catch-up asks for what comes after it, so a message skipped by a gap is fetched even when a
 * later one already arrived.
 */
export function heldThrough(items: readonly ChatItem[]): number {
  const seqs = [...new Set(items.filter((item) => item.seq > 0).map((item) => item.seq))].sort((a, b) => a - b);
  let through = seqs[0] ?? 0;
  for (const seq of seqs.slice(1)) {
    if (seq !== through + 1) break;
    through = seq;
  }
  return through;
}

/** The lowest seq held, 0 when none: above 1, older messages exist that the window may load. */
export function firstSeq(items: readonly ChatItem[]): number {
  let min = 0;
  for (const item of items) if (item.seq > 0 && (min === 0 || item.seq < min)) min = item.seq;
  return min;
}

/** True when a pushed message skips seqs we do not hold, so a catch-up is needed. */
export function isGap(held: number, arrived: number): boolean {
  return arrived > held + 1;
}

export function markWithdrawn(items: readonly ChatItem[], onlyID: string): ChatItem[] {
  return items.map((item) => (item.onlyID === onlyID ? { ...item, withdrawn: true } : item));
}
