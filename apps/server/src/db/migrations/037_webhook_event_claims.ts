import type { Kysely } from 'kysely';

/**
 * A queued webhook event is sent before its deliveries are written: the worker claims it
 * (`claimed_until`), attempts it towards each webhook, and writes each delivery once, with what came back,
 * as it takes the event out of the queue. A conversation's next event waits while an earlier one is queued
 * (`webhook_events_order`), so that each webhook receives them in order whichever process sends them.
 */
export function webhookEventClaims() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('webhook_events').addColumn('claimed_until', 'varchar(32)').execute();
      await db.schema.createIndex('webhook_events_order').on('webhook_events').columns(['order_key', 'id']).execute();
    },
  };
}
