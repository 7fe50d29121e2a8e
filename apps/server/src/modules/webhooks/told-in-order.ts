import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { WebhookEventsTable } from '../../db/schema.js';
import { type MessageSpan, tookMessage } from './message-spans.js';

/** An event as queued in `webhook_events`. */
type QueuedEventRow = Selectable<WebhookEventsTable>;

/**
 * An event taken to be made into deliveries, with the webhooks it is for. `body` is '' for a message told
 * by reference: its body is built from the stored message (message-events.ts).
 */
export type TakenEvent = Pick<QueuedEventRow, 'event_id' | 'event' | 'order_key' | 'source' | 'body' | 'created_at'> & {
  webhookIds: number[];
};

/** A message the messages table tells as `message.created` (SQLite, see WebhookRepository.takeTold). */
export interface ToldMessage {
  id: number;
  created_at: string;
  public_id: string;
}

/** A webhook with the spans of messages it took. */
export interface MessageTaker {
  id: number;
  spans: MessageSpan[];
}

/** The key that keeps one visitor's conversation events in order for each webhook. */
export const visitorOrderKey = (publicId: string) => `visitor:${publicId}`;

/** The webhooks a queued event was for (a JSON list of ids). */
function webhooksOf(event: QueuedEventRow): number[] {
  const ids: unknown = JSON.parse(event.webhook_ids);
  return Array.isArray(ids) ? ids.filter((id): id is number => Number.isInteger(id)) : [];
}

/** A queued event as taken. */
export function taken(row: QueuedEventRow): TakenEvent {
  return {
    event_id: row.event_id,
    event: row.event,
    order_key: row.order_key,
    source: row.source,
    body: row.body,
    created_at: row.created_at,
    webhookIds: webhooksOf(row),
  };
}

/**
 * The queued events and the messages read in one snapshot, told in the order they committed: an event
 * after the messages up to its mark (the newest message id when it was queued), before the next. Each
 * read is the first `limit` rows past what was read before; when one was cut by its limit, what might
 * come before its rows not read waits for the next look. `newest` is the snapshot's newest message id.
 * Answers what to tell, the last event told, and the message id every message up to which is told.
 */
export function toldInOrder(
  events: QueuedEventRow[],
  messages: ToldMessage[],
  takers: MessageTaker[],
  limit: number,
  newest: number,
): { told: TakenEvent[]; lastEvent: number | undefined; messagesUpTo: number } {
  const lastEvent = events.length === limit ? events.at(-1) : undefined;
  const lastMessage = messages.length === limit ? messages.at(-1) : undefined;
  // Told up to this message: all of them when neither read was cut.
  const upTo = Math.min(lastMessage?.id ?? newest, lastEvent ? (lastEvent.messages_mark ?? 0) : Number.POSITIVE_INFINITY);
  const told: TakenEvent[] = [];
  let next = 0;
  const tellMessagesUpTo = (mark: number) => {
    for (; next < messages.length && (messages[next]?.id ?? 0) <= mark; next++) {
      const message = messages[next] as ToldMessage;
      const webhookIds = takers.filter(({ spans }) => tookMessage(spans, message.id)).map(({ id }) => id);
      if (webhookIds.length > 0)
        told.push({
          event_id: randomUUID(),
          event: 'message.created',
          order_key: visitorOrderKey(message.public_id),
          source: `message:${message.id}`,
          body: '',
          created_at: message.created_at,
          webhookIds,
        });
    }
  };
  let lastEventTold: number | undefined;
  for (const event of events) {
    const mark = event.messages_mark ?? 0;
    if (mark > upTo) break;
    tellMessagesUpTo(mark);
    told.push(taken(event));
    lastEventTold = event.id;
  }
  tellMessagesUpTo(upTo);
  return { told, lastEvent: lastEventTold, messagesUpTo: upTo };
}
