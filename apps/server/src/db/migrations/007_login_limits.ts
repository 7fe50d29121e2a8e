import type { Kysely } from 'kysely';

/**
 * Failed-login counters, one row per limited key (an account from an address, or an address), each with
 * the start of its window. A login reserves its slot with one conditional upsert before the password is
 * checked, so concurrent attempts and several server processes cannot overrun the limit.
 */
export function loginLimits() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('login_attempts')
        .addColumn('key', 'varchar(160)', (c) => c.primaryKey())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('window_start', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('login_attempts_window').on('login_attempts').column('window_start').execute();
    },
  };
}
