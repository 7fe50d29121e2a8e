import { type Kysely, sql } from 'kysely';
import { hashToken, newVisitorPublicId } from '../../lib/tokens.js';

const BATCH = 500;

/**
 * The visitor's credential is no longer stored: `token` becomes `token_hash` (SHA-256 hex, enough for a
 * random credential of 144 bits; renaming keeps its unique constraint on both databases), and agents
 * name a visitor by a new random `public_id`.
 */
export function visitorCredentials() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('visitors').renameColumn('token', 'token_hash').execute();
      await db.schema
        .alterTable('visitors')
        .addColumn('public_id', 'varchar(32)', (c) => c.notNull().defaultTo(''))
        .execute();
      let after = 0;
      for (;;) {
        const { rows } = await sql<{ id: number; token_hash: string }>`
          select id, token_hash from visitors where id > ${after} order by id limit ${BATCH}`.execute(db);
        if (rows.length === 0) break;
        for (const row of rows) {
          await sql`update visitors set token_hash = ${hashToken(row.token_hash)}, public_id = ${newVisitorPublicId()}
            where id = ${row.id}`.execute(db);
        }
        after = Number(rows[rows.length - 1]?.id);
      }
      await db.schema.createIndex('visitors_public_id').on('visitors').column('public_id').unique().execute();
    },
  };
}
