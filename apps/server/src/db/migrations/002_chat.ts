import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

export function chat(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('visitors'), dialect)
        .addColumn('token', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('phone', 'varchar(32)', (c) => c.notNull().defaultTo(''))
        .addColumn('email', 'varchar(254)', (c) => c.notNull().defaultTo(''))
        .addColumn('channel', 'varchar(16)', (c) => c.notNull())
        .addColumn('state', 'varchar(8)', (c) => c.notNull())
        .addColumn('service_id', 'varchar(36)')
        .addColumn('online', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('unread', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('umsg', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('smsg', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_seq', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('ip', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('region', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('user_agent', 'varchar(512)', (c) => c.notNull().defaultTo(''))
        .addColumn('platform', 'varchar(32)', (c) => c.notNull().defaultTo(''))
        .addColumn('browser', 'varchar(32)', (c) => c.notNull().defaultTo(''))
        .addColumn('device', 'varchar(16)', (c) => c.notNull().defaultTo(''))
        .addColumn('referrer', 'varchar(2048)', (c) => c.notNull().defaultTo(''))
        .addColumn('engine', 'varchar(32)', (c) => c.notNull().defaultTo(''))
        .addColumn('keyword', 'varchar(256)', (c) => c.notNull().defaultTo(''))
        .addColumn('first_url', 'varchar(2048)', (c) => c.notNull().defaultTo(''))
        .addColumn('lang', 'varchar(35)', (c) => c.notNull().defaultTo(''))
        /** When the visitor joined the queue; orders it. */
        .addColumn('wait_since', 'varchar(32)')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('last_seen_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('visitors_state').on('visitors').columns(['state', 'service_id']).execute();
      await db.schema.createIndex('visitors_online').on('visitors').column('online').execute();

      await idColumn(db.schema.createTable('messages'), dialect)
        .addColumn('visitor_id', 'integer', (c) => c.notNull().references('visitors.id').onDelete('cascade'))
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('only_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('role', 'varchar(8)', (c) => c.notNull())
        .addColumn('type', 'varchar(8)', (c) => c.notNull())
        .addColumn('msg', 'text', (c) => c.notNull())
        .addColumn('nickname', 'varchar(64)', (c) => c.notNull())
        .addColumn('service_id', 'varchar(36)')
        .addColumn('withdrawn', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addUniqueConstraint('messages_visitor_seq', ['visitor_id', 'seq'])
        .addUniqueConstraint('messages_visitor_only_id', ['visitor_id', 'only_id'])
        .execute();

      await idColumn(db.schema.createTable('visits'), dialect)
        .addColumn('visitor_id', 'integer', (c) => c.notNull().references('visitors.id').onDelete('cascade'))
        .addColumn('url', 'varchar(2048)', (c) => c.notNull())
        .addColumn('title', 'varchar(512)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('visits_visitor').on('visits').columns(['visitor_id', 'id']).execute();

      await idColumn(db.schema.createTable('conversations'), dialect)
        .addColumn('visitor_id', 'integer', (c) => c.notNull().references('visitors.id').onDelete('cascade'))
        .addColumn('service_id', 'varchar(36)')
        .addColumn('first_seq', 'integer', (c) => c.notNull())
        .addColumn('last_seq', 'integer', (c) => c.notNull())
        .addColumn('score', 'integer')
        .addColumn('comment', 'varchar(500)', (c) => c.notNull().defaultTo(''))
        .addColumn('started_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('ended_at', 'varchar(32)')
        .execute();
      await db.schema.createIndex('conversations_visitor').on('conversations').columns(['visitor_id', 'id']).execute();
      await db.schema.createIndex('conversations_started').on('conversations').column('started_at').execute();

      await idColumn(db.schema.createTable('monitors'), dialect)
        .addColumn('visitor_id', 'integer', (c) => c.notNull().references('visitors.id').onDelete('cascade'))
        .addColumn('agent_uuid', 'varchar(36)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addUniqueConstraint('monitors_pair', ['visitor_id', 'agent_uuid'])
        .execute();

      await idColumn(db.schema.createTable('letters'), dialect)
        .addColumn('visitor_id', 'integer', (c) => c.references('visitors.id').onDelete('set null'))
        .addColumn('name', 'varchar(64)', (c) => c.notNull())
        .addColumn('phone', 'varchar(32)', (c) => c.notNull())
        .addColumn('email', 'varchar(254)', (c) => c.notNull())
        .addColumn('content', 'varchar(2000)', (c) => c.notNull())
        .addColumn('ip', 'varchar(64)', (c) => c.notNull())
        .addColumn('read', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('letters_read').on('letters').column('read').execute();
    },
  };
}
