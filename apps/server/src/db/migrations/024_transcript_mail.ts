import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/**
 * Transcripts go only to an address its visitor proved (issue 23, finding 10).
 *
 * - `transcript_confirmations`: one row per confirmation mail, its single-use token stored as a SHA-256
 *   hash, with its expiry and the moment it was used. A used row is the proof that the visitor holds the
 *   address. Rows are also what the per-address, per-visitor and per-requester limits count.
 * - `mail_stops`: addresses that asked for no more mail; none is ever sent to them again.
 * - `mail_stop_tokens`: the unsubscribe link of each mail, stored hashed; it stays valid.
 *
 * Addresses are kept as the SHA-256 of their lower-cased form only: the visitor's own record holds the
 * address, and a database copy does not list who asked to stop.
 */
export function transcriptMail(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('transcript_confirmations'), dialect)
        .addColumn('visitor_id', 'integer', (c) => c.notNull().references('visitors.id').onDelete('cascade'))
        .addColumn('email_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('ip', 'varchar(64)', (c) => c.notNull())
        .addColumn('lang', 'varchar(8)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('confirmed_at', 'varchar(32)')
        .execute();
      await db.schema
        .createIndex('transcript_confirmations_visitor')
        .on('transcript_confirmations')
        .columns(['visitor_id', 'email_hash'])
        .execute();
      await db.schema
        .createIndex('transcript_confirmations_email')
        .on('transcript_confirmations')
        .columns(['email_hash', 'created_at'])
        .execute();
      await db.schema.createIndex('transcript_confirmations_ip').on('transcript_confirmations').columns(['ip', 'created_at']).execute();
      await db.schema.createIndex('transcript_confirmations_time').on('transcript_confirmations').column('created_at').execute();

      await db.schema
        .createTable('mail_stops')
        .addColumn('email_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('mail_stop_tokens')
        .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('email_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('lang', 'varchar(8)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
    },
  };
}
