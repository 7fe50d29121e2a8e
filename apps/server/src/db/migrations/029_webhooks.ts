import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/**
 * Webhooks (CONTRACT §12):
 * - `webhooks`: a receiver's URL, the events it takes (JSON list) and its signing secret, sealed; during a
 *   rotation the secret replaced keeps signing until `previous_until`. `failures` counts failed attempts
 *   in a row (20 disable it).
 * - `webhook_deliveries`: one event on its way to one webhook, the outbox the worker drains. `uuid` is
 *   the `Parley-Delivery` header; `order_key` (the visitor's public id) keeps one conversation's events
 *   in order; a process claims a row until `claimed_until`, so each attempt is made once. Rows of a
 *   deleted webhook go with it.
 */
export function webhooks(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('webhooks'), dialect)
        .addColumn('url', 'varchar(2048)', (c) => c.notNull())
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_until', 'varchar(32)')
        .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await idColumn(db.schema.createTable('webhook_deliveries'), dialect)
        .addColumn('uuid', 'varchar(36)', (c) => c.notNull().unique())
        .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
        .addColumn('event_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('event', 'varchar(64)', (c) => c.notNull())
        .addColumn('order_key', 'varchar(64)')
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('response_code', 'integer')
        .addColumn('error', 'varchar(64)')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('last_attempt_at', 'varchar(32)')
        .addColumn('next_at', 'varchar(32)')
        .addColumn('claimed_until', 'varchar(32)')
        .execute();
      // Pending rows in the order they go out: a look for due ones stops at the first few it finds.
      await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'id']).execute();
      await db.schema.createIndex('webhook_deliveries_of').on('webhook_deliveries').columns(['webhook_id', 'id']).execute();
      await db.schema
        .createIndex('webhook_deliveries_order')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'order_key', 'status'])
        .execute();
    },
  };
}
