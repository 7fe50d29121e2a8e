import { type Expression, type ExpressionBuilder, expressionBuilder, type SqlBool } from 'kysely';
import type { DialectName } from '../../db/dialect.js';
import type { Db, DbOrTx } from '../../db/index.js';
import { type Page, paginate } from '../../db/paginate.js';
import type { Database } from '../../db/schema.js';
import { KeywordSearch } from '../history/search.js';

export interface VisitorFilter {
  channel?: string | undefined;
  keyword?: string | undefined;
  /** First seen at or after this instant. */
  from?: string | undefined;
  /** First seen before this instant. */
  before?: string | undefined;
}

/** The message types whose text is an upload's URL. */
const UPLOAD_TYPES = ['image', 'file'];

/** SQL of the visitor records: visitors with their notes, counts and last message; edits and erasure. */
export class VisitorRecordRepository {
  private readonly search: KeywordSearch;

  constructor(
    readonly db: Db,
    private readonly dialect: DialectName,
  ) {
    this.search = new KeywordSearch(db, dialect);
  }

  /** The filter's conditions on the visitor's own columns (the keyword's apart): none keeps every visitor. */
  private ownConditions(eb: ExpressionBuilder<Database, 'visitors'>, filter: VisitorFilter) {
    const conditions: Expression<SqlBool>[] = [];
    if (filter.channel) conditions.push(eb('visitors.channel', '=', filter.channel));
    if (filter.from) conditions.push(eb('visitors.created_at', '>=', filter.from));
    if (filter.before) conditions.push(eb('visitors.created_at', '<', filter.before));
    return conditions;
  }

  private filtered(filter: VisitorFilter, db: DbOrTx = this.db) {
    let query = db.selectFrom('visitors');
    if (!this.keepsEvery(filter)) query = query.where((eb) => eb.and(this.ownConditions(eb, filter)));
    const { keyword } = filter;
    if (keyword) query = query.where('visitors.id', 'in', this.search.visitorIds(keyword));
    return query;
  }

  private keepsEvery(filter: VisitorFilter): boolean {
    return this.ownConditions(expressionBuilder<Database, 'visitors'>(), filter).length === 0;
  }

  private withColumns(query: ReturnType<VisitorRecordRepository['filtered']>) {
    return query
      .leftJoin('visitor_notes', 'visitor_notes.visitor_id', 'visitors.id')
      .leftJoin('links', 'links.id', 'visitors.link_id')
      .leftJoin('wechat_users', 'wechat_users.visitor_id', 'visitors.id')
      .leftJoin('messages as last', (join) => join.onRef('last.visitor_id', '=', 'visitors.id').onRef('last.seq', '=', 'visitors.last_seq'))
      .selectAll('visitors')
      .select((eb) => [
        'visitor_notes.remark',
        'visitor_notes.tags',
        'links.name as link_name',
        'wechat_users.subscribed as wechat_subscribed',
        'wechat_users.last_interaction_at as wechat_interaction_at',
        eb
          .selectFrom('visits')
          .select((inner) => inner.fn.countAll<number>().as('n'))
          .whereRef('visits.visitor_id', '=', 'visitors.id')
          .as('visit_count'),
        eb
          .selectFrom('conversations')
          .select((inner) => inner.fn.countAll<number>().as('n'))
          .whereRef('conversations.visitor_id', '=', 'visitors.id')
          .as('conversation_count'),
        'last.id as last_id',
        'last.seq as last_message_seq',
        'last.only_id as last_only_id',
        'last.role as last_role',
        'last.type as last_type',
        'last.msg as last_msg',
        'last.nickname as last_nickname',
        'last.service_id as last_service_id',
        'last.withdrawn as last_withdrawn',
        'last.created_at as last_created_at',
      ]);
  }

  /**
   * A page of the list, newest first, and its total (on PostgreSQL past a hundred thousand, `estimated`:
   * `db/count.ts`); with a keyword the visitors found are walked newest first
   * (`KeywordSearch.newestVisitors`), the total exact up to COUNT_CAP and `more` past it.
   */
  async list(filter: VisitorFilter, page: Page) {
    const { keyword, ...others } = filter;
    if (!keyword)
      return {
        ...(await paginate(
          () => this.filtered(filter),
          (query) => this.newestFirst(query),
          page,
          { db: this.db, dialect: this.dialect },
        )),
        more: false,
      };
    // With no other filter every visitor found is kept: no statement asks which at each step of the walk.
    const keep = this.keepsEvery(others)
      ? async (ids: number[]) => ids
      : async (ids: number[]) =>
          ids.length === 0
            ? []
            : (await this.filtered(others).select('visitors.id').where('visitors.id', 'in', ids).execute()).map((row) => row.id);
    const found = await this.search.newestVisitors(keyword, keep, page.pageNo * page.pageSize);
    const ids = found.ids.slice((page.pageNo - 1) * page.pageSize, page.pageNo * page.pageSize);
    const rows = ids.length === 0 ? [] : await this.newestFirst(this.filtered({}).where('visitors.id', 'in', ids)).execute();
    return { rows, total: found.total, more: found.more, estimated: false };
  }

  private newestFirst(query: ReturnType<VisitorRecordRepository['filtered']>) {
    return this.withColumns(query).orderBy('visitors.created_at', 'desc').orderBy('visitors.id', 'desc');
  }

  find(db: DbOrTx, publicId: string) {
    return this.withColumns(this.filtered({}, db)).where('visitors.public_id', '=', publicId).executeTakeFirst();
  }

  idOf(db: DbOrTx, publicId: string) {
    return db.selectFrom('visitors').select('id').where('public_id', '=', publicId).executeTakeFirst();
  }

  async updateContact(db: DbOrTx, id: number, changes: { name?: string; phone?: string; email?: string }): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    await db.updateTable('visitors').set(changes).where('id', '=', id).execute();
  }

  async saveNotes(db: DbOrTx, visitorId: number, notes: { remark?: string; tags?: string[] }, at: string): Promise<void> {
    const changes = {
      ...(notes.remark !== undefined ? { remark: notes.remark } : {}),
      ...(notes.tags !== undefined ? { tags: JSON.stringify(notes.tags) } : {}),
    };
    if (Object.keys(changes).length === 0) return;
    await db
      .insertInto('visitor_notes')
      .values({ visitor_id: visitorId, remark: '', tags: '[]', ...changes, updated_at: at })
      .onConflict((conflict) => conflict.column('visitor_id').doUpdateSet({ ...changes, updated_at: at }))
      .execute();
  }

  /** The visitors with these public ids that exist. */
  visitorsByPublicId(db: DbOrTx, publicIds: string[]) {
    return db.selectFrom('visitors').select(['id', 'public_id']).where('public_id', 'in', publicIds).execute();
  }

  /** Texts of the visitors' image and file messages: they name the uploads shown in their conversations. */
  async uploadMessages(db: DbOrTx, visitorIds: number[]): Promise<string[]> {
    const rows = await db
      .selectFrom('messages')
      .select('msg')
      .where('visitor_id', 'in', visitorIds)
      .where('type', 'in', UPLOAD_TYPES)
      .execute();
    return rows.map((row) => row.msg);
  }

  /**
   * Of these upload names (agents' files sent in the visitors' conversations), the ones no other visitor's
   * message shows: those go with the visitors; a file also shown elsewhere stays for the others.
   */
  async onlyShownTo(db: DbOrTx, visitorIds: number[], names: string[]): Promise<string[]> {
    const kept: string[] = [];
    for (const name of names) {
      const elsewhere = await db
        .selectFrom('messages')
        .select('id')
        .where('visitor_id', 'not in', visitorIds)
        .where('type', 'in', UPLOAD_TYPES)
        // `_` in a name matches any character here: at worst a file is kept, never one removed that is shown elsewhere.
        .where('msg', 'like', `%/api/files/${name}%`)
        .limit(1)
        .executeTakeFirst();
      if (!elsewhere) kept.push(name);
    }
    return kept;
  }

  /**
   * Deletes the visitors and everything stored about them: messages, visits, conversations, monitors,
   * notes, letters and upload rows (their own, and the named ones). Answers the upload file names removed.
   */
  async erase(db: DbOrTx, visitorIds: number[], uploadNames: string[]): Promise<string[]> {
    const byName =
      uploadNames.length > 0 ? await db.deleteFrom('uploads').where('name', 'in', uploadNames).returning('name').execute() : [];
    const own = await db.deleteFrom('uploads').where('visitor_id', 'in', visitorIds).returning('name').execute();
    await db.deleteFrom('messages').where('visitor_id', 'in', visitorIds).execute();
    await db.deleteFrom('visits').where('visitor_id', 'in', visitorIds).execute();
    await db.deleteFrom('conversations').where('visitor_id', 'in', visitorIds).execute();
    await db.deleteFrom('monitors').where('visitor_id', 'in', visitorIds).execute();
    await db.deleteFrom('visitor_notes').where('visitor_id', 'in', visitorIds).execute();
    await db.deleteFrom('letters').where('visitor_id', 'in', visitorIds).execute();
    await db.deleteFrom('visitors').where('id', 'in', visitorIds).execute();
    return [...new Set([...byName, ...own].map((row) => row.name))];
  }
}
