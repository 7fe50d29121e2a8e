import type { WebhookEvent } from '@parley/protocol';
import type { Db, DbOrTx } from '../../db/index.js';
import type { VisitorRow } from '../../db/schema.js';
import type { DomainEvents, EventHub, EventName } from '../../realtime/domain-events.js';
import type { ConversationOutbox } from '../conversations/outboxes.js';
import type { ConversationRepository } from '../conversations/repository.js';
import type { WebhookService } from './service.js';
import { visitorOrderKey } from './told-in-order.js';
import { webhookVisitor } from './views.js';

const orderOf = (visitor: Pick<VisitorRow, 'public_id'>) => visitorOrderKey(visitor.public_id);

/**
 * Turns domain events into webhook events (CONTRACT §12) and queues them for the webhooks that take them.
 * Every event is queued inside the transaction of the change that makes it — a conversation's opening
 * and its messages through the conversation outboxes (`outbox`), the others as the events' recorders —
 * so no crash loses or invents one, and one visitor's events queue in the order they committed. The data
 * is built only when some webhook takes the event, and which webhooks are enabled is kept in memory: a
 * site without webhooks pays nothing.
 */
export class WebhookPublisher {
  constructor(
    private readonly db: Db,
    private readonly conversations: ConversationRepository,
    private readonly webhooks: WebhookService,
  ) {}

  /** The visitor's conversation now (the last one opened): its history id. */
  private async conversationId(visitor: VisitorRow, db: DbOrTx = this.db): Promise<number | null> {
    return this.conversations.latestId(db, visitor.id);
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
    // Tips are the conversation's notices (an agent joined, it ended), told by the events. A message is
    // queued by reference: its body is the worker's to build (see message-events.ts). Where the messages
    // table is itself the outbox of `message.created` (SQLite), nothing is written.
    stored: async (tx, visitor, row) => {
      if (row.role === 'tip' || this.webhooks.messagesTold) return;
      const takers = await this.webhooks.takers('message.created', tx);
      await this.webhooks.enqueueMessage(orderOf(visitor), row.id, takers, tx);
    },
    // The enabled webhooks are held in memory: asking costs no statement once they have been read.
    quietOnVisitorMessages: async () => this.webhooks.messagesTold || (await this.webhooks.takers('message.created')).length === 0,
  };

  /** Queues `type` for the webhooks that take it, in the change's transaction; builds the data only then. */
  private async queue(tx: DbOrTx, type: WebhookEvent, orderKey: string | null, data: () => unknown | Promise<unknown>): Promise<void> {
    const takers = await this.webhooks.takers(type, tx);
    if (takers.length === 0) return;
    await this.webhooks.enqueue(type, orderKey, await data(), takers, null, tx);
  }

  subscribe(events: EventHub): void {
    // What was queued in a transaction goes out once that transaction has committed.
    const committed = (type: WebhookEvent) => async () => {
      if ((await this.webhooks.takers(type)).length > 0) this.webhooks.kick();
    };
    events.on('conversation.opened', committed('conversation.created'));
    events.on('message.stored', committed('message.created'));
    const kept = <K extends EventName>(event: K, type: WebhookEvent, queue: (tx: DbOrTx, payload: DomainEvents[K]) => Promise<void>) => {
      events.recordWith(event, queue);
      events.on(event, committed(type));
    };
    kept('conversation.assigned', 'conversation.assigned', (tx, { visitor, agent, by }) =>
      this.queue(tx, 'conversation.assigned', orderOf(visitor), async () => ({
        conversation: await this.conversation(visitor, tx),
        agent,
        by,
      })),
    );
    kept('conversation.handedOver', 'conversation.assigned', async (tx, { visitor, agent }) => {
      if (!agent) return;
      await this.queue(tx, 'conversation.assigned', orderOf(visitor), async () => ({
        conversation: await this.conversation(visitor, tx),
        agent,
        by: 'robot',
      }));
    });
    kept('conversation.transferred', 'conversation.transferred', (tx, { visitor, from, to }) =>
      this.queue(tx, 'conversation.transferred', orderOf(visitor), async () => ({
        conversation: await this.conversation(visitor, tx),
        from,
        to,
      })),
    );
    kept('conversation.ended', 'conversation.ended', (tx, { visitor, by }) =>
      this.queue(tx, 'conversation.ended', orderOf(visitor), async () => ({ conversation: await this.conversation(visitor, tx), by })),
    );
    kept('conversation.rated', 'rating.created', (tx, { visitor, conversationId, score, comment }) =>
      this.queue(tx, 'rating.created', orderOf(visitor), () => ({ conversationId, visitor: webhookVisitor(visitor), score, comment })),
    );
    kept('conversation.labelled', 'conversation.labelled', (tx, { visitor, conversationId, labels, by }) =>
      this.queue(tx, 'conversation.labelled', orderOf(visitor), () => ({ conversationId, visitor: webhookVisitor(visitor), labels, by })),
    );
    // Internal notes reach only the webhooks that take note events.
    kept('note.created', 'note.created', (tx, { visitor, note }) =>
      this.queue(tx, 'note.created', orderOf(visitor), () => ({
        conversationId: note.conversationId,
        visitor: webhookVisitor(visitor),
        note,
      })),
    );
    kept('visitor.created', 'visitor.created', (tx, { visitor }) =>
      this.queue(tx, 'visitor.created', orderOf(visitor), () => ({ visitor: webhookVisitor(visitor) })),
    );
    kept('visitor.identified', 'visitor.identified', (tx, { visitor, mergedFrom }) =>
      this.queue(tx, 'visitor.identified', orderOf(visitor), () => ({ visitor: webhookVisitor(visitor), mergedFrom })),
    );
    kept('letter.created', 'letter.created', (tx, { letter }) => this.queue(tx, 'letter.created', null, () => ({ letter })));
    kept('agent.stateChanged', 'agent.status', (tx, { uuid, state, online }) =>
      this.queue(tx, 'agent.status', `agent:${uuid}`, () => ({ agent: { uuid }, state, online })),
    );
  }
}
