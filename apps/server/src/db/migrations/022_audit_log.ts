import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/**
 * The audit log (CONTRACT §15): one row per change to the back office, written in the change's own
 * transaction. `actor` keeps the username as it was, so a row still says who acted after the account is
 * renamed or deleted; `actor_id` is deliberately no foreign key, since deleting an agent must not rewrite
 * the rows that recorded them. The page lists newest first (by id) and filters by actor, action and time.
 *
 * Append-only is the database's rule too, not only the code's: a trigger refuses every UPDATE and DELETE,
 * so neither a later feature nor the retention purge can change what was recorded.
 */
export function auditLog(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('audit_log'), dialect)
        .addColumn('actor', 'varchar(64)', (c) => c.notNull())
        .addColumn('actor_id', 'integer')
        .addColumn('action', 'varchar(64)', (c) => c.notNull())
        .addColumn('target', 'varchar(255)', (c) => c.notNull())
        .addColumn('detail', 'text', (c) => c.notNull())
        .addColumn('ip', 'varchar(64)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_log_time').on('audit_log').column('created_at').execute();
      await db.schema.createIndex('audit_log_actor_id').on('audit_log').columns(['actor', 'id']).execute();
      await db.schema.createIndex('audit_log_action_id').on('audit_log').columns(['action', 'id']).execute();
      if (dialect === 'postgres') {
        await sql`create function audit_log_append_only() returns trigger language plpgsql as $$
          begin raise exception 'audit_log is append-only'; end $$`.execute(db);
        await sql`create trigger audit_log_append_only before update or delete on audit_log
          for each row execute function audit_log_append_only()`.execute(db);
      } else {
        await sql`create trigger audit_log_no_update before update on audit_log
          begin select raise(abort, 'audit_log is append-only'); end`.execute(db);
        await sql`create trigger audit_log_no_delete before delete on audit_log
          begin select raise(abort, 'audit_log is append-only'); end`.execute(db);
      }
    },
  };
}
