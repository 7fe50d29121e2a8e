import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/**
 * `webhook_events`: the events a change queued for webhooks, one row each whatever the number of webhooks
 * that take it (`webhook_ids`, JSON), written in the change's transaction. The worker turns them into
 * `webhook_deliveries` (one per webhook, where attempts are counted) in batches of its own, so the message
 * path writes one row with one index, not one row and five indexes per webhook.
 */
export function webhookEvents(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('webhook_events'), dialect)
        .addColumn('event_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('event', 'varchar(64)', (c) => c.notNull())
        .addColumn('order_key', 'varchar(64)')
        .addColumn('source', 'varchar(96)')
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('webhook_ids', 'text', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
    },
  };
}
