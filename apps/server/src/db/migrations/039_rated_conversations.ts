import { type Kysely, sql } from 'kysely';

/**
 * The ratings page (`service`, kind `evaluate`) counts each agent's ratings by score over a range: read
 * from the census index it passed every conversation begun in the range, rated or not (a year of a busy
 * site, 1.25 million entries, over a second when cold). This index holds the rated ones alone, with what
 * the count reads, so the same count passes half as many entries or fewer; a conversation enters it only
 * when it is rated.
 */
export function ratedConversations() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`create index conversations_rated on conversations (started_at, service_id, score) where score is not null`.execute(db);
    },
  };
}
