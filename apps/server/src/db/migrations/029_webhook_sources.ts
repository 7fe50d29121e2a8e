import type { Kysely } from 'kysely';

/**
 * `webhook_deliveries.source`: the stored fact a delivery tells (`message:<id>`), unique per webhook, so
 * that a start telling the messages a stop left untold never tells one twice (CONTRACT §12).
 */
export function webhookSources() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('webhook_deliveries').addColumn('source', 'varchar(96)').execute();
      await db.schema
        .createIndex('webhook_deliveries_source')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'source'])
        .unique()
        .execute();
    },
  };
}
