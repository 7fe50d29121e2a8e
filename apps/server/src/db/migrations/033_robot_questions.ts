import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/**
 * `robot_questions`: what visitors asked the robot in real chats, one row per question (compared as the
 * matcher reads text, `text_key`) and the pair it reached (`pair_id`, 0 when no pair answered it: the
 * "unanswered" list). A question asked again counts up `times` rather than adding a row, and old rows are
 * pruned, so the table stays bounded however busy the site. `dismissed` hides an unanswered question an
 * administrator set aside, for good: asking it again counts it but does not bring it back.
 *
 * `robot_asks.assists`: how often agents sent a pair's answer offered to them as a suggestion (agent assist).
 */
export function robotQuestions(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('robot_questions'), dialect)
        .addColumn('text_key', 'varchar(400)', (c) => c.notNull())
        .addColumn('text', 'varchar(400)', (c) => c.notNull())
        .addColumn('pair_id', 'integer', (c) => c.notNull())
        .addColumn('times', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('last_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('dismissed', 'integer', (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('robot_questions_key_pair', ['text_key', 'pair_id'])
        .execute();
      await db.schema.createIndex('robot_questions_pair_last').on('robot_questions').columns(['pair_id', 'last_at']).execute();
      await db.schema.createIndex('robot_questions_last').on('robot_questions').column('last_at').execute();
      await db.schema
        .alterTable('robot_asks')
        .addColumn('assists', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
