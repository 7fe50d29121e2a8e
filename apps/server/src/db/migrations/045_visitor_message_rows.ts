import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * PostgreSQL: a batch of visitor messages' rows as a function the planner counts as a few rows (`rows 4`),
 * for the batch statement (`modules/conversations/repository.ts`, visitorWritesMany). Read straight from
 * `unnest` of its array parameters, the batch was planned anew at every run (0.2–0.3 ms, a quarter to a
 * half of its time in PostgreSQL): a plan made for the actual arrays costs less than a generic one made for
 * `unnest`'s guess of 100 rows, so PostgreSQL never settled on one. Counted the same by both plans, the rows
 * give the generic plan (index lookups of each visitor and conversation) from the sixth run on, planned
 * once per connection. PL/pgSQL, so that the function is never inlined (which would bring the guess back)
 * and its own query is planned once per connection too.
 */
export function visitorMessageRows(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`create function visitor_message_rows(token_hashes text[], only_ids text[], types text[], msgs text[], created_ats text[])
        returns table (token_hash text, only_id text, type text, msg text, created_at text, ord bigint)
        language plpgsql volatile rows 4
        as $$ begin
          return query select * from unnest(token_hashes, only_ids, types, msgs, created_ats) with ordinality;
        end $$`.execute(db);
    },
  };
}
