import type { Kysely } from 'kysely';

/**
 * The questions the robot offers with an answer it did not find (CONTRACT §8): kept on its message, one
 * question a line (a phrasing never holds a line break), so a widget that reloads draws the same chips.
 */
export function robotSuggestions() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('messages')
        .addColumn('suggestions', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
    },
  };
}
