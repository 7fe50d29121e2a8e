import type { Kysely } from 'kysely';

/**
 * `claims`: short-lived claims on a name (`db/claims.ts`), so that of several processes sharing the
 * database one does a thing — force a WeChat token refresh, ask WeChat for a typing indicator — and the
 * others see it done or under way. `until` is when the claim lapses (ISO time, compared as text).
 */
export function claims() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('claims')
        .addColumn('name', 'varchar(200)', (c) => c.primaryKey())
        .addColumn('until', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('claims_until').on('claims').column('until').execute();
    },
  };
}
