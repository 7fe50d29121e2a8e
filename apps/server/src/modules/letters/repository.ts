import type { LetterState } from '@parley/protocol';
import type { Db, DbOrTx } from '../../db/index.js';
import { type Page, paginate } from '../../db/paginate.js';
import type { LettersTable } from '../../db/schema.js';
import { containsText } from '../../db/sql.js';

export interface LetterFilter {
  state?: LetterState | undefined;
  keyword?: string | undefined;
  /** ISO instants: `from` included, `before` excluded. */
  from?: string | undefined;
  before?: string | undefined;
}

const letterColumns = [
  'letters.id',
  'visitors.public_id',
  'letters.name',
  'letters.phone',
  'letters.email',
  'letters.content',
  'letters.created_at',
  'letters.read',
  'letters.handled',
  'letters.handled_by',
  'letters.note',
] as const;

/** SQL of leave-messages. */
export class LetterRepository {
  constructor(readonly db: Db) {}

  async insert(
    row: Pick<LettersTable, 'visitor_id' | 'name' | 'phone' | 'email' | 'content' | 'ip' | 'created_at'>,
    db: DbOrTx = this.db,
  ): Promise<number> {
    const inserted = await db
      .insertInto('letters')
      .values({ ...row, read: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    return inserted.id;
  }

  private joined(db: DbOrTx = this.db) {
    return db.selectFrom('letters').leftJoin('visitors', 'visitors.id', 'letters.visitor_id');
  }

  /** The letters the filter keeps, from `letters` alone: it asks nothing of their visitors. */
  private filtered(filter: LetterFilter) {
    let query = this.db.selectFrom('letters');
    if (filter.state === 'unread') query = query.where('letters.read', '=', 0);
    if (filter.state === 'read') query = query.where('letters.read', '=', 1).where('letters.handled', '=', 0);
    if (filter.state === 'handled') query = query.where('letters.handled', '=', 1);
    const { keyword, from, before } = filter;
    if (keyword)
      query = query.where((eb) =>
        eb.or(['letters.name', 'letters.phone', 'letters.email', 'letters.content'].map((column) => containsText(column, keyword))),
      );
    if (from) query = query.where('letters.created_at', '>=', from);
    if (before) query = query.where('letters.created_at', '<', before);
    return query;
  }

  list(filter: LetterFilter, page: Page) {
    return paginate(
      () => this.filtered(filter),
      // The visitor joined for the page's rows only: the total counts letters alone (SQLite would look up
      // every letter's visitor to count it, 70 ms at 37,000 letters beside five million visitors).
      (query) =>
        query
          .leftJoin('visitors', 'visitors.id', 'letters.visitor_id')
          .select(letterColumns)
          .orderBy('letters.created_at', 'desc')
          .orderBy('letters.id', 'desc'),
      page,
    );
  }

  findById(id: number, db: DbOrTx = this.db) {
    return this.joined(db).select(letterColumns).where('letters.id', '=', id).executeTakeFirst();
  }

  async markRead(ids: number[], at: string): Promise<void> {
    await this.db.updateTable('letters').set({ read: 1, read_at: at }).where('id', 'in', ids).where('read', '=', 0).execute();
  }

  /** Handling reads the letter too; un-handling forgets who handled it. Undefined `note` keeps the note. */
  async setHandled(id: number, handledBy: string | null, at: string, note: string | undefined): Promise<boolean> {
    const handled = handledBy !== null;
    const result = await this.db
      .updateTable('letters')
      .set((eb) => ({
        handled: handled ? 1 : 0,
        handled_by: handledBy,
        handled_at: handled ? at : null,
        ...(handled ? { read: 1, read_at: eb.fn.coalesce('read_at', eb.val(at)) } : {}),
        ...(note === undefined ? {} : { note }),
      }))
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async deleteMany(ids: number[]): Promise<void> {
    await this.db.deleteFrom('letters').where('id', 'in', ids).execute();
  }

  async unread(): Promise<{ count: number; latest: string | null }> {
    const row = await this.db
      .selectFrom('letters')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('created_at').as('latest')])
      .where('read', '=', 0)
      .executeTakeFirstOrThrow();
    return { count: Number(row.n), latest: row.latest ?? null };
  }
}

export type LetterRow = NonNullable<Awaited<ReturnType<LetterRepository['findById']>>>;
