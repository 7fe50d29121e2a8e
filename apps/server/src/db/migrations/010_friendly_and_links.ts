import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/**
 * Friendly contacts (a shared address book), chat links (`/chat?link=<key>`), and the link each visitor
 * arrived through. Deleting a link clears its visitors' `link_id`: they keep their history, and their
 * source falls back to the referrer.
 */
export function friendlyAndLinks(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('friendly'), dialect)
        .addColumn('name', 'varchar(64)', (c) => c.notNull())
        .addColumn('company', 'varchar(128)', (c) => c.notNull().defaultTo(''))
        .addColumn('phone', 'varchar(32)', (c) => c.notNull().defaultTo(''))
        .addColumn('email', 'varchar(254)', (c) => c.notNull().defaultTo(''))
        .addColumn('wechat', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('remark', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();

      await idColumn(db.schema.createTable('links'), dialect)
        .addColumn('name', 'varchar(64)', (c) => c.notNull())
        .addColumn('key', 'varchar(32)', (c) => c.notNull().unique())
        .addColumn('service_id', 'varchar(36)')
        .addColumn('remark', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();

      await db.schema
        .alterTable('visitors')
        .addColumn('link_id', 'integer', (c) => c.references('links.id').onDelete('set null'))
        .execute();
      // The link list counts visitors and conversations per link.
      await db.schema.createIndex('visitors_link').on('visitors').column('link_id').execute();
    },
  };
}
