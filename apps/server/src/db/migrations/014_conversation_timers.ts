import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/**
 * When each open conversation's timed auto answers come due (the idle reminder, the agent-silent notice,
 * the automatic close). Kept in the database rather than in a process's memory, so that a restart loses
 * none and several processes can share them: whichever claims a due row first acts on it.
 */
export function conversationTimers(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('conversation_timers'), dialect)
        .addColumn('visitor_id', 'integer', (c) => c.notNull().references('visitors.id').onDelete('cascade'))
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('due_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('claimed_until', 'varchar(32)')
        .execute();
      await db.schema
        .createIndex('conversation_timers_visitor_kind')
        .unique()
        .on('conversation_timers')
        .columns(['visitor_id', 'kind'])
        .execute();
      // The scheduler's poll reads the earliest due rows.
      await db.schema.createIndex('conversation_timers_due').on('conversation_timers').column('due_at').execute();
    },
  };
}
