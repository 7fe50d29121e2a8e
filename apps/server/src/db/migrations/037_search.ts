import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';
import { searchSchema } from '../search.js';

/**
 * The search indexes of messages and visitors (see `db/search.ts`) and `search_backfill`: for each index,
 * `low`, the id below which rows written before it are not yet indexed (0 once the server's indexer has
 * reached the first row), and `next`, on SQLite the first id the indexer has not yet taken forward. The
 * migration itself indexes nothing, so it takes no longer on ten million messages than on none.
 */
export function search(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('search_backfill')
        .addColumn('name', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('low', 'integer', (c) => c.notNull())
        .addColumn('next', 'integer', (c) => c.notNull())
        .execute();
      // On PostgreSQL the triggers' creation waits for the transactions writing these tables, so every
      // row committed before it is below the ids read here, and every row after it is indexed by them.
      for (const statement of searchSchema(dialect)) await sql.raw(statement).execute(db);
      for (const [index, source] of [
        ['message_search', 'messages'],
        ['visitor_search', 'visitors'],
      ] as const)
        await sql`insert into search_backfill (name, low, next)
          select ${index}, coalesce(max(id) + 1, 0), coalesce(max(id) + 1, 0) from ${sql.table(source)}`.execute(db);
    },
  };
}
