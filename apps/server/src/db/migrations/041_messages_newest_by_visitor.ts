import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';

/**
 * A visitor's newest message, read from the index alone. A keyword's history reads it for each visitor
 * the keyword finds by name or phone (a surname: 12,000 visitors at ten million messages), and on
 * PostgreSQL each read fetched the message's row for its id: the unique index over a visitor's seqs now
 * holds the id too (on SQLite the id is the row's key, which every index holds already).
 */
export function messagesNewestByVisitor(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      await sql`alter table messages drop constraint messages_visitor_seq,
        add constraint messages_visitor_seq unique (visitor_id, seq) include (id)`.execute(db);
    },
  };
}
