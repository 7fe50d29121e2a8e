import type { Kysely } from 'kysely';

/**
 * Each agent's own notification choices (personal settings; null follows the team's desktop settings), and the GB/T 2260 code of a visitor's
 * region, which the region rules match on ('' when the address maps to none).
 */
export function personalAndRegions() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const column of ['notify_new_user', 'notify_new_msg', 'notify_sound']) {
        await db.schema.alterTable('agents').addColumn(column, 'integer').execute();
      }
      await db.schema
        .alterTable('visitors')
        .addColumn('region_code', 'varchar(6)', (c) => c.notNull().defaultTo(''))
        .execute();
    },
  };
}
