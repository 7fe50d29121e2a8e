import type { WebhookEvent } from '@parley/protocol';
import type { Db, DbOrTx } from '../../db/index.js';
import type { EventHub } from '../../lib/events.js';
import type { ConversationOutbox } from '../conversations/outboxes.js';
import { toMessage } from '../conversations/views.js';
import type { VisitorRow } from '../visitors/repository.js';
import { attributesOf } from '../visitors/views.js';
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

/** The key that keeps one visitor's conversation events in order for each webhook. */
const orderOf = (visitor: VisitorRow) => `visitor:${visitor.public_id}`;

/**
 * Turns domain events into webhook events (CONTRACT §12) and queues them for the webhooks that take them.
 * A conversation's opening and its messages are queued inside the transaction that makes them (`outbox`),
 * so no crash loses or invents one; the other events are queued just after their change commits, off the
 * path of the request that made it, in the order they came. The data is built only when some webhook
 * takes the event, and which webhooks are enabled is kept in memory: a site without webhooks pays nothing.
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
  private async conversationId(visitor: VisitorRow, db: DbOrTx = this.db): Promise<number | null> {
    const row = await db
      .selectFrom('conversations')
      .select('id')
      .where('visitor_id', '=', visitor.id)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.id ?? null;
  }

  private async conversation(visitor: VisitorRow, db: DbOrTx = this.db) {
    return { id: await this.conversationId(visitor, db), visitor: webhookVisitor(visitor) };
  }

  /** Written in the transaction of a conversation's opening and of each message: see ConversationOutbox. */
  readonly outbox: ConversationOutbox = {
    opened: async (tx, visitor, agent) => {
      const takers = await this.webhooks.takers('conversation.created', tx);
      if (takers.length === 0) return;
      const data = { conversation: await this.conversation(visitor, tx), agent };
      await this.webhooks.enqueue('conversation.created', orderOf(visitor), data, takers, null, tx);
    },
    // Tips are the conversation's notices (an agent joined, it ended), told by the events.
    stored: async (tx, visitor, row) => {
      if (row.role === 'tip') return;
      const takers = await this.webhooks.takers('message.created', tx);
      if (takers.length === 0) return;
      const data = {
        conversationId: await this.conversationId(visitor, tx),
        visitor: webhookVisitor(visitor),
        message: toMessage(row, visitor.public_id),
      };
      await this.webhooks.enqueue('message.created', orderOf(visitor), data, takers, `message:${row.id}`, tx);
    },
  };

  private publish(type: WebhookEvent, orderKey: string | null, data: () => unknown, source: string | null = null): void {
    this.tail = this.tail
      .then(async () => {
        const takers = await this.webhooks.takers(type);
        if (takers.length === 0) return;
        await this.webhooks.enqueue(type, orderKey, await data(), takers, source);
      })
      .catch(this.onError);
  }

  subscribe(events: EventHub): void {
    // What the outbox queued in a transaction goes out once that transaction has committed.
    const committed = (type: WebhookEvent) => async () => {
      if ((await this.webhooks.takers(type)).length > 0) this.webhooks.kick();
    };
    events.on('conversation.opened', committed('conversation.created'));
    events.on('message.stored', committed('message.created'));
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
