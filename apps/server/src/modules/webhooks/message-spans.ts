/**
 * When a webhook took `message.created`, as spans of message ids: where the messages table is that
 * event's outbox (SQLite, see WebhookRepository.takeTold), the delivery process reads messages after they
 * were stored, perhaps after the webhook was disabled, enabled again or made, and tells each one to the
 * webhooks that took it when it was stored. A span is `[after, upTo]`: the messages with ids above
 * `after` and up to `upTo` (null while it still takes them). Each bound is the newest message id in the
 * transaction that changed the webhook; with SQLite's one writer, no message falls between two.
 */
export type MessageSpan = [after: number, upTo: number | null];

/** Spans a webhook keeps: a webhook switched on and off more often than this within one delay of the thread is not a case to serve. */
const KEPT_SPANS = 16;

export function spansOf(stored: string | null): MessageSpan[] {
  if (!stored) return [];
  try {
    const parsed: unknown = JSON.parse(stored);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (span): span is MessageSpan =>
        Array.isArray(span) && span.length === 2 && Number.isInteger(span[0]) && (span[1] === null || Number.isInteger(span[1])),
    );
  } catch {
    return [];
  }
}

/**
 * The spans after a change of the webhook (`newest` the newest message id in its transaction), or
 * undefined when they stay as they are: a span opens when it begins to take messages, closes when it stops.
 */
export function spansAfter(stored: string | null, taking: boolean, newest: number): string | undefined {
  const spans = spansOf(stored);
  const open = spans.at(-1)?.[1] === null;
  if (taking === open) return undefined;
  if (taking) return JSON.stringify([...spans, [newest, null]].slice(-KEPT_SPANS));
  const last = spans.at(-1) as MessageSpan;
  return JSON.stringify([...spans.slice(0, -1), [last[0], Math.max(last[0], newest)]]);
}

/** Whether the message `id` was stored while the webhook took messages. */
export function tookMessage(spans: MessageSpan[], id: number): boolean {
  return spans.some(([after, upTo]) => id > after && (upTo === null || id <= upTo));
}

/** The lowest id after which some span still has messages to tell past `read`; undefined when none has. */
export function firstTakenAfter(spans: MessageSpan[], read: number): number | undefined {
  let first: number | undefined;
  for (const [after, upTo] of spans) {
    if (upTo !== null && upTo <= read) continue;
    first = first === undefined ? after : Math.min(first, after);
  }
  return first;
}
