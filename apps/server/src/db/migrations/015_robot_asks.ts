import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/**
 * The robot's question-answer pairs (CONTRACT §7). The phrasings of a pair are one text, a phrasing a
 * line (a phrasing never holds a line break), so the keyword search is a plain LIKE on both databases;
 * the first phrasing is kept apart too, indexed, because an import recognises a pair by it.
 */
export function robotAsks(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('robot_asks'), dialect)
        .addColumn('questions', 'text', (c) => c.notNull())
        .addColumn('first_question', 'varchar(200)', (c) => c.notNull())
        .addColumn('answer', 'text', (c) => c.notNull())
        .addColumn('image', 'varchar(512)', (c) => c.notNull().defaultTo(''))
        .addColumn('category', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('hits', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('robot_asks_first_question').on('robot_asks').column('first_question').execute();
    },
  };
}
