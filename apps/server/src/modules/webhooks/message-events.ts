import type { DbOrTx } from '../../db/index.js';
import { toMessage } from '../visitors/views.js';
import type { TakenEvent } from './told-in-order.js';
import { envelopeBody, WEBHOOK_VISITOR_COLUMNS, webhookVisitor } from './views.js';

/** The message a `message.created` event told by reference tells of (`source` `message:<id>`, no body). */
function messageIdOf(event: TakenEvent): number | undefined {
  const match = /^message:(\d+)$/.exec(event.source ?? '');
  return match ? Number(match[1]) : undefined;
}

/**
 * The bodies of `message.created` events told by reference, built by the worker from the stored message:
 * the message's transaction writes at most a small row (which message, which webhooks: on PostgreSQL; on
 * SQLite the messages table itself is read, see WebhookRepository.takeTold), and the reading and the JSON
 * are the worker's, off the chat's thread. The data is the message, its visitor and the
 * conversation it belongs to (the visitor's last one begun at or before it). Answers the body of each
 * event given, in order; undefined for one whose message is no longer there (purged since), which tells
 * nothing.
 */
export async function messageBodies(db: DbOrTx, events: TakenEvent[]): Promise<(string | undefined)[]> {
  const ids = events.map(messageIdOf).filter((id): id is number => id !== undefined);
  if (ids.length === 0) return events.map(() => undefined);
  // Each message with the conversation it belongs to, in one statement for the batch.
  const rows = await db
    .selectFrom('messages as m')
    .selectAll('m')
    .select((eb) =>
      eb
        .selectFrom('conversations as c')
        .select('c.id')
        .whereRef('c.visitor_id', '=', 'm.visitor_id')
        .whereRef('c.first_seq', '<=', 'm.seq')
        .orderBy('c.id', 'desc')
        .limit(1)
        .as('conversation_id'),
    )
    .where('m.id', 'in', ids)
    .execute();
  const messages = new Map(rows.map(({ conversation_id, ...row }) => [row.id, { row, conversationId: conversation_id ?? null }]));
  const visitorIds = [...new Set([...messages.values()].map(({ row }) => row.visitor_id))];
  // Only what a receiver is shown of each visitor: the rest of the row (its address, user agent, counters) is never sent.
  const visitors = new Map(
    (visitorIds.length > 0
      ? await db
          .selectFrom('visitors')
          .select(['id', ...WEBHOOK_VISITOR_COLUMNS])
          .where('id', 'in', visitorIds)
          .execute()
      : []
    ).map((row) => [row.id, row]),
  );
  const bodies: (string | undefined)[] = [];
  for (const event of events) {
    const id = messageIdOf(event);
    const found = id === undefined ? undefined : messages.get(id);
    const visitor = found && visitors.get(found.row.visitor_id);
    if (!found || !visitor) {
      bodies.push(undefined);
      continue;
    }
    const data = {
      conversationId: found.conversationId,
      visitor: webhookVisitor(visitor),
      message: toMessage(found.row, visitor.public_id),
    };
    bodies.push(envelopeBody(event.event_id, event.event, event.created_at, data));
  }
  return bodies;
}
