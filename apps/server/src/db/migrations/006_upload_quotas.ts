import type { Kysely } from 'kysely';

/** The uploader's address, for the per-address upload quota, and indexes for the quotas and the sweep. */
export function uploadQuotas() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('uploads').addColumn('ip', 'varchar(64)').execute();
      await db.schema.createIndex('uploads_visitor_time').on('uploads').columns(['visitor_id', 'created_at']).execute();
      await db.schema.createIndex('uploads_ip_time').on('uploads').columns(['ip', 'created_at']).execute();
      await db.schema.createIndex('uploads_time').on('uploads').column('created_at').execute();
    },
  };
}
