import type { DbOrTx } from '../../db/index.js';
import type { MessagePathVisitor, MessageRow, VisitorRow } from '../../db/schema.js';
import type { AgentRef } from '../../realtime/domain-events.js';

/**
 * A durable outbox that must commit with a conversation's change or not at all (webhook deliveries,
 * sends to WeChat). Its rows are written inside the change's own transaction, so a crash can neither lose
 * what was committed nor leave a row for a change that rolled back. Its worker is woken after the commit,
 * by the domain event. An outbox that wants nothing of a change answers from memory: a site without
 * webhooks or WeChat pays no statement on the message path.
 */
export interface ConversationOutbox {
  /** A conversation was opened for `visitor` (the row as opened), given to `agent`, or not yet to anyone. */
  opened?(tx: DbOrTx, visitor: VisitorRow, agent: AgentRef | null): Promise<void>;
  /**
   * A message was stored. The outbox may mark `row` (a WeChat send is `pending` from the start), and the
   * later outboxes and the events see the mark.
   */
  stored?(tx: DbOrTx, visitor: MessagePathVisitor, row: MessageRow, visitorSees: boolean): Promise<void>;
  /**
   * True when `stored` writes nothing now for a visitor's own message (role user), whoever the visitor:
   * such a message may then commit in one statement by itself (GroupCommit's `alone`). An outbox with a
   * `stored` that does not answer is taken to write.
   */
  quietOnVisitorMessages?(): boolean | Promise<boolean>;
}

/** The outboxes, run in the order they were added, inside the transaction of each change. */
export class ConversationOutboxes {
  private readonly list: ConversationOutbox[] = [];

  add(outbox: ConversationOutbox): void {
    this.list.push(outbox);
  }

  async opened(tx: DbOrTx, visitor: VisitorRow, agent: AgentRef | null): Promise<void> {
    for (const outbox of this.list) await outbox.opened?.(tx, visitor, agent);
  }

  async stored(tx: DbOrTx, visitor: MessagePathVisitor, row: MessageRow, visitorSees: boolean): Promise<void> {
    for (const outbox of this.list) await outbox.stored?.(tx, visitor, row, visitorSees);
  }

  /** Whether no outbox writes anything for a visitor's own message now (see ConversationOutbox). */
  async quietOnVisitorMessages(): Promise<boolean> {
    for (const outbox of this.list) {
      if (!outbox.stored) continue;
      if (!outbox.quietOnVisitorMessages || !(await outbox.quietOnVisitorMessages())) return false;
    }
    return true;
  }
}
