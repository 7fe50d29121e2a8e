import type { Insertable, Selectable } from 'kysely';
import type { Db, DbOrTx } from '../../db/index.js';
import type { ConversationNotesTable } from '../../db/schema.js';

export type NoteRow = Selectable<ConversationNotesTable> & { mentions: string[] };

/** SQL of internal notes and the agents they mention (migration 025). */
export class NoteRepository {
  constructor(readonly db: Db) {}

  /** Stores a note and its mentions; a resent onlyID fails the unique index. */
  async insert(tx: DbOrTx, note: Insertable<ConversationNotesTable>, mentions: string[]): Promise<NoteRow> {
    const row = await tx.insertInto('conversation_notes').values(note).returningAll().executeTakeFirstOrThrow();
    if (mentions.length > 0) {
      await tx
        .insertInto('note_mentions')
        .values(
          mentions.map((uuid) => ({ note_id: row.id, agent_uuid: uuid, conversation_id: row.conversation_id, visitor_id: row.visitor_id })),
        )
        .execute();
    }
    return { ...row, mentions };
  }

  async findByOnlyId(visitorId: number, onlyId: string): Promise<NoteRow | undefined> {
    const row = await this.db
      .selectFrom('conversation_notes')
      .selectAll()
      .where('visitor_id', '=', visitorId)
      .where('only_id', '=', onlyId)
      .executeTakeFirst();
    return row && (await this.withMentions([row]))[0];
  }

  /** A visitor's newest notes, up to `limit`, returned oldest first. */
  async ofVisitor(visitorId: number, limit: number): Promise<NoteRow[]> {
    const rows = await this.db
      .selectFrom('conversation_notes')
      .selectAll()
      .where('visitor_id', '=', visitorId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return this.withMentions(rows.reverse());
  }

  /** The notes of these conversations, oldest first. */
  async ofConversations(conversationIds: number[]): Promise<NoteRow[]> {
    if (conversationIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('conversation_notes')
      .selectAll()
      .where('conversation_id', 'in', conversationIds)
      .orderBy('id')
      .execute();
    return this.withMentions(rows);
  }

  private async withMentions(rows: Selectable<ConversationNotesTable>[]): Promise<NoteRow[]> {
    if (rows.length === 0) return [];
    const mentions = await this.db
      .selectFrom('note_mentions')
      .select(['note_id', 'agent_uuid'])
      .where(
        'note_id',
        'in',
        rows.map((row) => row.id),
      )
      .execute();
    const byNote = new Map<number, string[]>();
    for (const mention of mentions) byNote.set(mention.note_id, [...(byNote.get(mention.note_id) ?? []), mention.agent_uuid]);
    return rows.map((row) => ({ ...row, mentions: byNote.get(row.id) ?? [] }));
  }

  /** The enabled agents of these usernames. */
  agentsNamed(usernames: string[]) {
    if (usernames.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('agents')
      .select(['id', 'uuid', 'username', 'nickname'])
      .where('username', 'in', usernames)
      .where('disabled', '=', 0)
      .execute();
  }
}
