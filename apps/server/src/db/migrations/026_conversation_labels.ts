import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/**
 * Conversation labels (issue 24, point 8).
 *
 * - `labels`: the managed list, a name (unique, compared in lower case through `name_key`) and a colour.
 * - `conversation_labels`: which labels a conversation carries. Deleting a label deletes its rows
 *   (cascade): a label taken off the list is gone from every conversation, history and statistics
 *   alike, and the audit log keeps its name. Erasing a conversation erases its rows too.
 */
export function conversationLabels(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('labels'), dialect)
        .addColumn('name', 'varchar(64)', (c) => c.notNull())
        .addColumn('name_key', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('color', 'varchar(7)', (c) => c.notNull())
        .addColumn('description', 'varchar(400)', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('conversation_labels')
        .addColumn('conversation_id', 'integer', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
        .addColumn('label_id', 'integer', (c) => c.notNull().references('labels.id').onDelete('cascade'))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addPrimaryKeyConstraint('conversation_labels_pk', ['conversation_id', 'label_id'])
        .execute();
      // The history filter and the statistics go from a label to its conversations.
      await db.schema.createIndex('conversation_labels_label').on('conversation_labels').columns(['label_id', 'conversation_id']).execute();
    },
  };
}
