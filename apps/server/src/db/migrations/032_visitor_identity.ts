import type { Kysely } from 'kysely';

/**
 * Visitor identity (CONTRACT §13):
 * - `user_id`: the site's own user id once the site's server vouched for it (HMAC); unique, so an
 *   identified user is one visitor on every browser. Null while the visitor is anonymous.
 * - `identity_credential`: that visitor's credential, sealed, handed to each browser the user identifies
 *   on (only its hash opens the visitor API, as for every visitor).
 * - `attributes`: what the site told of the visitor, a JSON object of at most 50 string, number or
 *   boolean values.
 * - `merged_into`: an anonymous visitor whose history moved into an identified one's; it is kept (rows
 *   elsewhere may still name it) but opens nothing and is listed nowhere.
 */
export function visitorIdentity() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('visitors').addColumn('user_id', 'varchar(255)').execute();
      await db.schema.alterTable('visitors').addColumn('identity_credential', 'text').execute();
      await db.schema
        .alterTable('visitors')
        .addColumn('attributes', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();
      await db.schema.alterTable('visitors').addColumn('merged_into', 'integer').execute();
      await db.schema.createIndex('visitors_user_id').on('visitors').column('user_id').unique().execute();
    },
  };
}
