import type { Kysely } from 'kysely';

/**
 * `messages.via`: the name of the API token an agent's message was sent with (a site's own bot, an
 * integration), so the workbench and history tell it from what a person typed; null otherwise.
 */
export function messageVia() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('messages').addColumn('via', 'varchar(64)').execute();
    },
  };
}
