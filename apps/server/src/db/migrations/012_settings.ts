import type { Kysely } from 'kysely';

/** The chat-window settings pages (CONTRACT §8): one row per page, its whole value as JSON text. */
export function settings() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('settings')
        .addColumn('page', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(40)', (c) => c.notNull())
        .addColumn('updated_by', 'varchar(64)')
        .execute();
    },
  };
}
