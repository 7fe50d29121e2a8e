import { type Kysely, sql } from 'kysely';

/**
 * On SQLite the messages table is the outbox of `message.created` (see WebhookRepository.takeTold): a
 * message's transaction writes nothing more for webhooks, and the delivery thread reads new messages past
 * the point it keeps. Two kinds of mark, each "the newest message id when this was written", order the
 * rest against the messages: `webhook_events.messages_mark` puts a queued event after the messages before
 * it (a conversation's opening before its first message), and `webhooks.message_spans` keeps when a
 * webhook took `message.created` (see message-spans.ts). Rows already queued, and the enabled webhooks
 * that take messages, get the mark of now: the messages before it were queued by reference.
 */
export function messagesTold() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('webhook_events').addColumn('messages_mark', 'integer').execute();
      await db.schema.alterTable('webhooks').addColumn('message_spans', 'text').execute();
      const newest = sql`(select coalesce(max(id), 0) from messages)`;
      await sql`update webhook_events set messages_mark = ${newest}`.execute(db);
      await sql`update webhooks set message_spans = '[[' || ${newest} || ',null]]'
        where enabled = 1 and events like '%"message.created"%'`.execute(db);
    },
  };
}
