import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/**
 * Web Push to agents (CONTRACT §14): the server's VAPID key pair (one row, the private key sealed), each
 * agent's browser subscriptions, which consoles are visible now (a row per agent and process, as
 * `agent_presence`), and the agent's own switches for transfers and leave-messages (null: the team's).
 */
export function push(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('push_keys')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('public_key', 'varchar(128)', (c) => c.notNull())
        .addColumn('private_key', 'text', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await idColumn(db.schema.createTable('push_subscriptions'), dialect)
        .addColumn('agent_id', 'integer', (c) => c.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('endpoint', 'varchar(1024)', (c) => c.notNull().unique())
        .addColumn('p256dh', 'varchar(128)', (c) => c.notNull())
        .addColumn('auth', 'varchar(64)', (c) => c.notNull())
        .addColumn('user_agent', 'varchar(256)', (c) => c.notNull())
        .addColumn('lang', 'varchar(8)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('last_sent_at', 'varchar(32)')
        .addColumn('last_failed_at', 'varchar(32)')
        .addColumn('last_error', 'varchar(256)')
        .execute();
      await db.schema.createIndex('push_subscriptions_agent').on('push_subscriptions').column('agent_id').execute();
      await db.schema
        .createTable('push_visible')
        .addColumn('agent_uuid', 'varchar(64)', (c) => c.notNull())
        .addColumn('node_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('seen_at', 'varchar(32)', (c) => c.notNull())
        .addPrimaryKeyConstraint('push_visible_pk', ['agent_uuid', 'node_id'])
        .execute();
      await db.schema.alterTable('agents').addColumn('notify_transfer', 'integer').execute();
      await db.schema.alterTable('agents').addColumn('notify_letter', 'integer').execute();
    },
  };
}
