import type { LabelRef } from '@parley/protocol';
import type { Insertable, Updateable } from 'kysely';
import type { Db, DbOrTx } from '../../db/index.js';
import { type Page, paginate } from '../../db/paginate.js';
import type { LabelsTable } from '../../db/schema.js';
import { containsText } from '../../db/sql.js';

/** How many ids go into one `in (…)`: well inside both databases' bind limits. */
const CHUNK = 500;

/** SQL of the label list and of the labels conversations carry. */
export class LabelRepository {
  constructor(private readonly db: Db) {}

  list(keyword: string | undefined, page: Page) {
    return paginate(
      () => {
        const query = this.db.selectFrom('labels');
        if (!keyword) return query;
        return query.where((eb) => eb.or([containsText('labels.name', keyword), containsText('labels.description', keyword)]));
      },
      (query) =>
        query
          .selectAll('labels')
          .select((eb) =>
            eb
              .selectFrom('conversation_labels')
              .select((inner) => inner.fn.countAll<number>().as('n'))
              .whereRef('conversation_labels.label_id', '=', 'labels.id')
              .as('conversations'),
          )
          .orderBy('labels.name_key')
          .orderBy('labels.id'),
      page,
    );
  }

  findById(db: DbOrTx, id: number) {
    return db.selectFrom('labels').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByKey(db: DbOrTx, nameKey: string) {
    return db.selectFrom('labels').select(['id']).where('name_key', '=', nameKey).executeTakeFirst();
  }

  findMany(db: DbOrTx, ids: readonly number[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('labels')
      .select(['id', 'name', 'color'])
      .where('id', 'in', [...ids])
      .orderBy('name_key')
      .execute();
  }

  async insert(db: DbOrTx, row: Insertable<LabelsTable>): Promise<number> {
    const inserted = await db.insertInto('labels').values(row).returning('id').executeTakeFirstOrThrow();
    return inserted.id;
  }

  async update(db: DbOrTx, id: number, changes: Updateable<LabelsTable>): Promise<void> {
    await db.updateTable('labels').set(changes).where('id', '=', id).execute();
  }

  /** Deletes the labels; the database takes them off every conversation (cascade, migration 026). */
  async deleteMany(db: DbOrTx, ids: readonly number[]): Promise<void> {
    await db
      .deleteFrom('labels')
      .where('id', 'in', [...ids])
      .execute();
  }

  /** Replaces a conversation's labels. */
  async replace(db: DbOrTx, conversationId: number, labelIds: readonly number[], at: string): Promise<void> {
    await db.deleteFrom('conversation_labels').where('conversation_id', '=', conversationId).execute();
    if (labelIds.length === 0) return;
    await db
      .insertInto('conversation_labels')
      .values(labelIds.map((label_id) => ({ conversation_id: conversationId, label_id, created_at: at })))
      .execute();
  }

  /** The labels of each of these conversations, by name; conversations without any are left out. */
  async ofConversations(conversationIds: readonly number[], db: DbOrTx = this.db): Promise<Map<number, LabelRef[]>> {
    const found = new Map<number, LabelRef[]>();
    const unique = [...new Set(conversationIds)];
    for (let start = 0; start < unique.length; start += CHUNK) {
      const rows = await db
        .selectFrom('conversation_labels')
        .innerJoin('labels', 'labels.id', 'conversation_labels.label_id')
        .select(['conversation_labels.conversation_id', 'labels.id', 'labels.name', 'labels.color'])
        .where('conversation_labels.conversation_id', 'in', unique.slice(start, start + CHUNK))
        .orderBy('labels.name_key')
        .execute();
      for (const row of rows) {
        const held = found.get(row.conversation_id) ?? [];
        held.push({ id: row.id, name: row.name, color: row.color });
        found.set(row.conversation_id, held);
      }
    }
    return found;
  }

  /** The latest conversation of each of these visitors (public ids). */
  async latestConversations(publicIds: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (let start = 0; start < publicIds.length; start += CHUNK) {
      const rows = await this.db
        .selectFrom('visitors')
        .innerJoin('conversations', 'conversations.visitor_id', 'visitors.id')
        .select((eb) => ['visitors.public_id', eb.fn.max('conversations.id').as('id')])
        .where('visitors.public_id', 'in', publicIds.slice(start, start + CHUNK))
        .groupBy('visitors.public_id')
        .execute();
      for (const row of rows) found.set(row.public_id, Number(row.id));
    }
    return found;
  }
}
