import type { Kysely } from 'kysely';

/**
 * The uploader's address, for the per-address upload quota; whether a message is known to reference an
 * upload, so the sweep checks each message once instead of every message for every upload; and indexes
 * for the quotas and the sweep.
 */
export function uploadQuotas() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('uploads').addColumn('ip', 'varchar(64)').execute();
      await db.schema
        .alterTable('uploads')
        .addColumn('referenced', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('uploads_visitor_time').on('uploads').columns(['visitor_id', 'created_at']).execute();
      await db.schema.createIndex('uploads_ip_time').on('uploads').columns(['ip', 'created_at']).execute();
      // The sweep deletes by `referenced = 0 AND created_at < cutoff`.
      await db.schema.createIndex('uploads_unreferenced_time').on('uploads').columns(['referenced', 'created_at']).execute();
    },
  };
}
