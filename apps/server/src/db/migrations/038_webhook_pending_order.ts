import { type Kysely, sql } from 'kysely';

/**
 * The index that keeps a conversation's deliveries in order covers only pending ones. Keyed by the
 * visitor, it took every delivery at a random place: each delivery written dirtied a page of its own in a
 * large index, and again when it went out. The order check asks only for earlier pending deliveries, so
 * the index of those stays small whatever the log keeps.
 */
const PENDING_ORDER_INDEX = sql`create index if not exists webhook_deliveries_pending_order
  on webhook_deliveries (webhook_id, order_key, id) where status = 'pending'`;

export function webhookPendingOrder() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`drop index if exists webhook_deliveries_order`.execute(db);
      await PENDING_ORDER_INDEX.execute(db);
    },
  };
}
