import type { Kysely } from 'kysely';

/**
 * Leave-messages are read, handled (by whom, when) and annotated in the back office; lists filter by
 * state and are newest first.
 */
export function letterHandling() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('letters').addColumn('read_at', 'varchar(32)').execute();
      await db.schema
        .alterTable('letters')
        .addColumn('handled', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('letters').addColumn('handled_by', 'varchar(64)').execute();
      await db.schema.alterTable('letters').addColumn('handled_at', 'varchar(32)').execute();
      await db.schema
        .alterTable('letters')
        .addColumn('note', 'varchar(1000)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.createIndex('letters_created').on('letters').column('created_at').execute();
    },
  };
}
