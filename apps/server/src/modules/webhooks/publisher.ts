import type { WebhookEvent } from '@parley/protocol';
import type { Db } from '../../db/index.js';
import type { EventHub } from '../../lib/events.js';
import { toMessage } from '../conversations/views.js';
import { attributesOf } from '../visitors/views.js';
import type { VisitorRow } from '../visitors/repository.js';
import type { WebhookService } from './service.js';

/**
 * A visitor as a receiver sees it: its public id as `YQToken` (CONTRACT §5: never the visitor's
 * credential) and what the history API shows of it.
 */
export function webhookVisitor(row: VisitorRow) {
  return {
    YQToken: row.public_id,
    name: row.name,
    phone: row.phone,
    email: row.email,
    channel: row.channel,
    region: row.region,
    device: row.device,
    browser: row.browser,
    firstUrl: row.first_url,
    referrer: row.referrer,
    createdAt: row.created_at,
    userId: row.user_id ?? null,
    attributes: attributesOf(row),
  };
}

/** How far back a start looks for stored messages no webhook was told of, and how many it reads at most. */
const RECOVER_WINDOW_MS = 15 * 60_000;
const RECOVER_LIMIT = 1000;

/** The key that keeps one visitor's conversation events in order for each webhook. */
const orderOf = (visitor: VisitorRow) => `visitor:${visitor.public_id}`;

/**
 * Turns domain events into webhook events (CONTRACT §12) and queues them for the webhooks that take them.
 * It runs after the change was committed, as every subscriber does, and off the path of the request that
 * made it: an event is queued a moment after its change is answered, in the order the events came. The
 * data is built only when some webhook takes the event, so a site without webhooks pays one small read
 * per event.
 */
export class WebhookPublisher {
  /** The events being queued, one after another: the message path does not wait for them, and their order holds. */
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly webhooks: WebhookService,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Resolves once every event told so far is queued (before the database closes). */
  flush(): Promise<void> {
    return this.tail;
  }

  /** The visitor's conversation now (the last one opened): its history id. */
  private async conversationId(visitor: VisitorRow, seq?: number): Promise<number | null> {
    let query = this.db.selectFrom('conversations').select('id').where('visitor_id', '=', visitor.id);
    if (seq !== undefined) query = query.where('first_seq', '<=', seq);
    const row = await query.orderBy('id', 'desc').limit(1).executeTakeFirst();
    return row?.id ?? null;
  }

  private async conversation(visitor: VisitorRow) {
    return { id: await this.conversationId(visitor), visitor: webhookVisitor(visitor) };
  }

  private publish(type: WebhookEvent, orderKey: string | null, data: () => unknown, source: string | null = null): void {
    this.tail = this.tail
      .then(async () => {
        const takers = await this.webhooks.takers(type);
        if (takers.length === 0) return;
        await this.webhooks.enqueue(type, orderKey, await data(), takers, source);
      })
      .catch(this.onError);
  }

  /**
   * At start: the messages stored in the last minutes (at most RECOVER_LIMIT) that a webhook taking
   * `message.created`, made before them, was never told of (the process stopped between their commit and
   * their queueing) are queued now. A message told already is not told again: a delivery's `source` is
   * unique per webhook, which also keeps two processes from telling one message twice. A message
   * recovered so comes after the later ones of its conversation that were queued in time.
   */
  async recover(now: number): Promise<number> {
    const takers = await this.webhooks.takersSince('message.created');
    if (takers.length === 0) return 0;
    const cutoff = new Date(now - RECOVER_WINDOW_MS).toISOString();
    // The newest rows by id, then filtered: a scan that stops, whatever the table holds.
    const rows = (await this.db.selectFrom('messages').selectAll().orderBy('id', 'desc').limit(RECOVER_LIMIT).execute())
      .filter((row) => row.role !== 'tip' && row.created_at >= cutoff)
      .reverse();
    if (rows.length === 0) return 0;
    const told = await this.webhooks.told(rows.map((row) => `message:${row.id}`));
    const visitorIds = [...new Set(rows.map((row) => row.visitor_id))];
    const visitors = new Map(
      (await this.db.selectFrom('visitors').selectAll().where('id', 'in', visitorIds).execute()).map((row) => [row.id, row]),
    );
    let recovered = 0;
    for (const row of rows) {
      const visitor = visitors.get(row.visitor_id);
      const source = `message:${row.id}`;
      const untold = takers.filter((hook) => hook.createdAt <= row.created_at && !told.has(`${hook.id} ${source}`)).map((hook) => hook.id);
      if (!visitor || untold.length === 0) continue;
      const data = {
        conversationId: await this.conversationId(visitor, row.seq),
        visitor: webhookVisitor(visitor),
        message: toMessage(row, visitor.public_id),
      };
      await this.webhooks.enqueue('message.created', orderOf(visitor), data, untold, source);
      recovered += 1;
    }
    return recovered;
  }

  subscribe(events: EventHub): void {
    events.on('conversation.opened', ({ visitor, agent }) =>
      this.publish('conversation.created', orderOf(visitor), async () => ({ conversation: await this.conversation(visitor), agent })),
    );
    events.on('conversation.assigned', ({ visitor, agent, by }) =>
      this.publish('conversation.assigned', orderOf(visitor), async () => ({ conversation: await this.conversation(visitor), agent, by })),
    );
    events.on('conversation.handedOver', ({ visitor, agent }) =>
      agent
        ? this.publish('conversation.assigned', orderOf(visitor), async () => ({
            conversation: await this.conversation(visitor),
            agent,
            by: 'robot',
          }))
        : undefined,
    );
    events.on('conversation.transferred', ({ visitor, from, to }) =>
      this.publish('conversation.transferred', orderOf(visitor), async () => ({
        conversation: await this.conversation(visitor),
        from,
        to,
      })),
    );
    events.on('conversation.ended', ({ visitor, by }) =>
      this.publish('conversation.ended', orderOf(visitor), async () => ({ conversation: await this.conversation(visitor), by })),
    );
    // Tips are the conversation's notices (an agent joined, it ended), told by the events above.
    events.on('message.stored', ({ visitor, message }) =>
      message.role === 'tip'
        ? undefined
        : this.publish(
            'message.created',
            orderOf(visitor),
            async () => ({ conversationId: await this.conversationId(visitor), visitor: webhookVisitor(visitor), message }),
            `message:${message.id}`,
          ),
    );
    events.on('conversation.rated', ({ visitor, conversationId, score, comment }) =>
      this.publish('rating.created', orderOf(visitor), () => ({ conversationId, visitor: webhookVisitor(visitor), score, comment })),
    );
    events.on('conversation.labelled', ({ visitor, conversationId, labels, by }) =>
      this.publish('conversation.labelled', orderOf(visitor), () => ({ conversationId, visitor: webhookVisitor(visitor), labels, by })),
    );
    // Internal notes reach only the webhooks that take note events.
    events.on('note.created', ({ visitor, note }) =>
      this.publish('note.created', orderOf(visitor), () => ({
        conversationId: note.conversationId,
        visitor: webhookVisitor(visitor),
        note,
      })),
    );
    events.on('visitor.created', ({ visitor }) =>
      this.publish('visitor.created', orderOf(visitor), () => ({ visitor: webhookVisitor(visitor) })),
    );
    events.on('visitor.identified', ({ visitor, mergedFrom }) =>
      this.publish('visitor.identified', orderOf(visitor), () => ({ visitor: webhookVisitor(visitor), mergedFrom })),
    );
    events.on('letter.created', ({ letter }) => this.publish('letter.created', null, () => ({ letter })));
    events.on('agent.stateChanged', ({ uuid, state, online }) =>
      this.publish('agent.status', `agent:${uuid}`, () => ({ agent: { uuid }, state, online })),
    );
  }
}
