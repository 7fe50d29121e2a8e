import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import type { Db, DbOrTx } from '../../db/index.js';
import { type Page, paginate } from '../../db/paginate.js';
import type { RobotAsksTable } from '../../db/schema.js';
import { containsText } from '../../db/sql.js';

export type RobotAskRow = Selectable<RobotAsksTable>;

export interface RobotAskFilter {
  keyword?: string | undefined;
  category?: string | undefined;
  enabled?: boolean | undefined;
}

/** SQL of the robot's question-answer pairs. */
export class RobotRepository {
  constructor(private readonly db: Db) {}

  private filtered(filter: RobotAskFilter) {
    let query = this.db.selectFrom('robot_asks');
    const { keyword, category, enabled } = filter;
    if (keyword) query = query.where((eb) => eb.or([containsText('questions', keyword), containsText('answer', keyword)]));
    if (category !== undefined) query = query.where('category', '=', category);
    if (enabled !== undefined) query = query.where('enabled', '=', enabled ? 1 : 0);
    return query;
  }

  list(filter: RobotAskFilter, page: Page) {
    return paginate(
      () => this.filtered(filter),
      (query) => query.selectAll().orderBy('id', 'desc'),
      page,
    );
  }

  /** Every pair the filter keeps, newest first, a page at a time (for the export). */
  async *pages(filter: RobotAskFilter, size = 500): AsyncGenerator<RobotAskRow[]> {
    // The first page has no lower bound at all: a sentinel such as Number.MAX_SAFE_INTEGER is out of range
    // for PostgreSQL's 32-bit serial id, and the whole query fails there.
    let before: number | undefined;
    for (;;) {
      let query = this.filtered(filter).selectAll();
      if (before !== undefined) query = query.where('id', '<', before);
      const rows = await query.orderBy('id', 'desc').limit(size).execute();
      if (rows.length > 0) yield rows;
      const last = rows.at(-1);
      if (rows.length < size || !last) return;
      before = last.id;
    }
  }

  /** The enabled pairs, what the matcher indexes, oldest first, a page at a time. */
  async *enabled(size: number) {
    let after = 0;
    for (;;) {
      const rows = await this.db
        .selectFrom('robot_asks')
        .select(['id', 'questions', 'answer', 'image'])
        .where('enabled', '=', 1)
        .where('id', '>', after)
        .orderBy('id')
        .limit(size)
        .execute();
      if (rows.length > 0) yield rows;
      const last = rows.at(-1);
      if (rows.length < size || !last) return;
      after = last.id;
    }
  }

  /** These pairs as the matcher indexes them, with their state (the ones that exist). */
  byIds(ids: number[]) {
    return this.db.selectFrom('robot_asks').select(['id', 'questions', 'answer', 'image', 'enabled']).where('id', 'in', ids).execute();
  }

  findById(db: DbOrTx, id: number) {
    return db.selectFrom('robot_asks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The pairs of these ids (those that exist) by their first phrasing, as the audit log names them. */
  firstQuestions(db: DbOrTx, ids: number[]) {
    return db.selectFrom('robot_asks').select(['id', 'first_question']).where('id', 'in', ids).orderBy('id').execute();
  }

  /** The oldest pair whose first phrasing is this one. */
  /** The oldest pair of each of these first phrasings, by phrasing: one query for a chunk of an import. */
  async idsByFirstQuestion(db: DbOrTx, questions: string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    if (questions.length === 0) return found;
    const rows = await db
      .selectFrom('robot_asks')
      .select(['id', 'first_question'])
      .where('first_question', 'in', questions)
      .orderBy('id')
      .execute();
    for (const row of rows) if (!found.has(row.first_question)) found.set(row.first_question, row.id);
    return found;
  }

  /** Many pairs in one statement; their ids, in no promised order. */
  async insertMany(db: DbOrTx, rows: Insertable<RobotAsksTable>[]): Promise<number[]> {
    if (rows.length === 0) return [];
    const inserted = await db.insertInto('robot_asks').values(rows).returning('id').execute();
    return inserted.map((row) => row.id);
  }

  async insert(db: DbOrTx, row: Insertable<RobotAsksTable>): Promise<number> {
    const inserted = await db.insertInto('robot_asks').values(row).returning('id').executeTakeFirstOrThrow();
    return inserted.id;
  }

  async update(db: DbOrTx, id: number, changes: Updateable<RobotAsksTable>): Promise<void> {
    await db.updateTable('robot_asks').set(changes).where('id', '=', id).execute();
  }

  async deleteMany(db: DbOrTx, ids: number[]): Promise<void> {
    await db.deleteFrom('robot_asks').where('id', 'in', ids).execute();
  }

  /** Counted in the database, so answers given by several processes at once all count. */
  async addHit(id: number): Promise<void> {
    await this.db.updateTable('robot_asks').set({ hits: sql`hits + 1` }).where('id', '=', id).execute();
  }

  /** Counted in the database, as hits are: agents of several processes all count. */
  async addAssist(id: number): Promise<void> {
    await this.db.updateTable('robot_asks').set({ assists: sql`assists + 1` }).where('id', '=', id).execute();
  }

  /** How many sent messages came from an inserted suggestion, over the pairs there are. */
  async assists(): Promise<number> {
    const row = await this.db
      .selectFrom('robot_asks')
      .select((eb) => eb.fn.sum<number | string | null>('assists').as('used'))
      .executeTakeFirst();
    return Number(row?.used ?? 0);
  }

  /**
   * Counts a batch of asked questions in one statement: a wording asked before (same key, same pair) adds
   * its times and takes the newest wording and time. The batch holds each key and pair once.
   */
  async recordQuestions(batch: AskedQuestion[]): Promise<void> {
    if (batch.length === 0) return;
    await this.db
      .insertInto('robot_questions')
      .values(
        batch.map((asked) => ({ text_key: asked.key, text: asked.text, pair_id: asked.pairId, times: asked.times, last_at: asked.lastAt })),
      )
      .onConflict((oc) =>
        oc.columns(['text_key', 'pair_id']).doUpdateSet({
          times: sql`robot_questions.times + excluded.times`,
          text: sql`excluded.text`,
          last_at: sql`excluded.last_at`,
        }),
      )
      .execute();
  }

  /** Drops the questions last asked before `before`, and all but the `keep` most recently asked. */
  async pruneQuestions(before: string, keep: number): Promise<void> {
    await this.db.deleteFrom('robot_questions').where('last_at', '<', before).execute();
    const edge = await this.db
      .selectFrom('robot_questions')
      .select('last_at')
      .orderBy('last_at', 'desc')
      .offset(keep)
      .limit(1)
      .executeTakeFirst();
    if (edge) await this.db.deleteFrom('robot_questions').where('last_at', '<=', edge.last_at).execute();
  }

  /** The questions that reached a pair, or (pair 0) those no pair answered and nobody set aside; most asked first. */
  questions(pairId: number, page: Page) {
    return paginate(
      () => {
        const query = this.db.selectFrom('robot_questions').where('pair_id', '=', pairId);
        return pairId === 0 ? query.where('dismissed', '=', 0) : query;
      },
      (query) =>
        query
          .select(['id', 'text', 'pair_id', 'times', 'last_at'])
          .orderBy('times', 'desc')
          .orderBy('last_at', 'desc')
          .orderBy('id', 'desc'),
      page,
    );
  }

  /** The unanswered questions of these ids still listed (for the audit log). */
  unansweredByIds(db: DbOrTx, ids: number[]) {
    return db
      .selectFrom('robot_questions')
      .select(['id', 'text'])
      .where('id', 'in', ids)
      .where('pair_id', '=', 0)
      .where('dismissed', '=', 0)
      .orderBy('id')
      .execute();
  }

  async dismissQuestions(db: DbOrTx, ids: number[]): Promise<void> {
    await db.updateTable('robot_questions').set({ dismissed: 1 }).where('id', 'in', ids).where('pair_id', '=', 0).execute();
  }

  /** A pair now answers these wordings: they leave the unanswered list. */
  async answeredNow(db: DbOrTx, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await db.deleteFrom('robot_questions').where('pair_id', '=', 0).where('text_key', 'in', keys).execute();
  }

  /** The questions that reached these pairs go with them. */
  async forgetQuestionsOf(db: DbOrTx, pairIds: number[]): Promise<void> {
    await db.deleteFrom('robot_questions').where('pair_id', 'in', pairIds).execute();
  }
}

/** A visitor's question as the question log batches it. */
export interface AskedQuestion {
  /** The wording as the matcher reads it. */
  key: string;
  text: string;
  /** The pair that answered it, 0 for none. */
  pairId: number;
  times: number;
  lastAt: string;
}
