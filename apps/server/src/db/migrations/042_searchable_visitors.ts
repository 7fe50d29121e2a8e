import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';
import { visitorSearchSync } from '../search.js';

/**
 * The visitor index holds only visitors with something to search (a name, phone, email, the site's user id
 * or attributes; see `db/search.ts`): most visitors have none, and their rows were most of the index's
 * table. Its sync is replaced, and the index emptied and handed to the backfill, which takes the visitors
 * again newest first in small steps while the server runs (searches look through the rows it has not
 * reached yet meanwhile): emptying it here is instant, whatever the number of visitors.
 */
export function searchableVisitors(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const statement of visitorSearchSync(dialect)) await sql.raw(statement).execute(db);
      if (dialect === 'postgres') {
        await sql`truncate visitor_search`.execute(db);
        await sql`update search_backfill set low = (select coalesce(max(id) + 1, 0) from visitors) where name = 'visitor_search'`.execute(
          db,
        );
      } else {
        await sql`insert into visitor_search (visitor_search) values ('delete-all')`.execute(db);
        // Rows from `next` on are still the forward indexer's; every row below it is the backfill's again.
        await sql`update search_backfill set low = next where name = 'visitor_search'`.execute(db);
      }
    },
  };
}
