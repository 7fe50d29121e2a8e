import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/**
 * Internal notes on a conversation, and the agents a note mentions (issue 24, point 8).
 *
 * Notes live in a table of their own rather than in `messages`: a message takes the visitor's next
 * `seq`, and the visitor finds lost messages by gaps in it (CONTRACT §4), so a note stored there would
 * either leave a gap the widget chases for ever or need every visitor-facing read to filter it out.
 * Kept apart, nothing a visitor reads (init, GET messages, afterSeq catch-up, the transcript mail, the
 * robot's context) can carry a note. `after_seq` is the visitor's last seq when the note was written,
 * so agents' clients place it among the messages.
 *
 * `note_mentions`: one row per agent a note names with `@username`; being mentioned lets that agent
 * read the conversation, as taking part in it does.
 */
export function notes(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('conversation_notes'), dialect)
        .addColumn('visitor_id', 'integer', (c) => c.notNull().references('visitors.id').onDelete('cascade'))
        .addColumn('conversation_id', 'integer', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
        .addColumn('only_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('service_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('nickname', 'varchar(64)', (c) => c.notNull())
        .addColumn('msg', 'text', (c) => c.notNull())
        .addColumn('after_seq', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addUniqueConstraint('conversation_notes_visitor_only_id', ['visitor_id', 'only_id'])
        .execute();
      await db.schema.createIndex('conversation_notes_conversation').on('conversation_notes').columns(['conversation_id', 'id']).execute();

      await db.schema
        .createTable('note_mentions')
        .addColumn('note_id', 'integer', (c) => c.notNull().references('conversation_notes.id').onDelete('cascade'))
        .addColumn('agent_uuid', 'varchar(36)', (c) => c.notNull())
        .addColumn('conversation_id', 'integer', (c) => c.notNull())
        .addColumn('visitor_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('note_mentions_pk', ['note_id', 'agent_uuid'])
        .execute();
      await db.schema.createIndex('note_mentions_agent').on('note_mentions').columns(['agent_uuid', 'conversation_id']).execute();
      await db.schema.createIndex('note_mentions_visitor').on('note_mentions').columns(['visitor_id', 'agent_uuid']).execute();
    },
  };
}
