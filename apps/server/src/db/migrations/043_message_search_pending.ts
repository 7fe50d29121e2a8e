import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';
import { messageSearchPending } from '../search.js';

/**
 * PostgreSQL: a new message is no longer indexed in the transaction that writes it; its id is noted in
 * `message_search_pending` there, and the search indexer indexes it a moment later (see `db/search.ts`).
 * Indexing it in place cost the message path most of its time at 1,000 messages a second: its grams, its
 * GIN entries, and now and then the GIN index's pending list flushed inside a message's transaction
 * (100 ms and more). Messages already indexed stay so; a change or deletion is still indexed at once.
 */
export function messageSearchPendingMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      for (const statement of messageSearchPending()) await sql.raw(statement).execute(db);
    },
  };
}
