import type { Kysely } from 'kysely';

/**
 * The home page counts today's visitors by when they were last seen: without an index that count reads
 * every visitor ever recorded. (Created only if absent, should another change have added the same index.)
 */
export function homeFigures() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('visitors_last_seen').ifNotExists().on('visitors').column('last_seen_at').execute();
    },
  };
}
