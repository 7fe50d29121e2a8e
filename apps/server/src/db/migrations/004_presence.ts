import type { Kysely } from 'kysely';

/**
 * Which agents have a console socket open, per server process: a conversation only goes to an agent
 * someone will see it with, whichever process holds that agent's socket.
 */
export function presence() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('agent_presence')
        .addColumn('agent_uuid', 'varchar(36)', (c) => c.notNull())
        .addColumn('node_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('seen_at', 'varchar(32)', (c) => c.notNull())
        .addPrimaryKeyConstraint('agent_presence_pk', ['agent_uuid', 'node_id'])
        .execute();
    },
  };
}
