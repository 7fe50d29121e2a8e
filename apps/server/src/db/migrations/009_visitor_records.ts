import type { Kysely } from 'kysely';

/**
 * What agents note about a visitor (a remark and tags, JSON text like every list) in a table of its own:
 * the visitor row belongs to the conversation flow, which creates it and never needs these. Plus indexes
 * for the back office's lists: visitors newest first per channel, conversations per agent, and a
 * visitor's letters (found when the visitor is erased).
 */
export function visitorRecords() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('visitor_notes')
        .addColumn('visitor_id', 'integer', (c) => c.primaryKey().references('visitors.id').onDelete('cascade'))
        .addColumn('remark', 'varchar(1000)', (c) => c.notNull().defaultTo(''))
        .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('visitors_created').on('visitors').column('created_at').execute();
      await db.schema.createIndex('visitors_channel_created').on('visitors').columns(['channel', 'created_at']).execute();
      await db.schema.createIndex('conversations_service').on('conversations').columns(['service_id', 'started_at']).execute();
      await db.schema.createIndex('letters_visitor').on('letters').column('visitor_id').execute();
    },
  };
}
