import { type ExpressionBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { DialectName } from '../../db/dialect.js';
import type { Db } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { CandidateWalk, type candidateIds, SEARCHED_VISITOR_FIELDS, searchedVisitorField } from '../../db/search.js';
import { containsText } from '../../db/sql.js';
import { lastSeq, messagesIn } from './ranges.js';

/** A subquery of visitors' ids. */
type VisitorIds = SelectQueryBuilder<Database, 'visitors' | 'visitor_notes', { id: number }>;

/** A conversation a keyword finds, and its rank: the id of its newest match (0 for none). */
export interface Hit {
  id: number;
  hit: number;
}

/**
 * Conversations a keyword finds, best first, a step at a time. After each step every hit still to come
 * ranks below `below`; `done` once none is left.
 */
export interface HitWalk {
  readonly below: number;
  readonly done: boolean;
  next(): Promise<Hit[]>;
}

/** Whether a visitor's fields contain the keyword: the test every visitor search ends with. */
export function fieldsContain(eb: ExpressionBuilder<Database, 'visitors'>, keyword: string) {
  return eb.or(SEARCHED_VISITOR_FIELDS.map((column) => containsText(sql.raw(searchedVisitorField('visitors', column)), keyword)));
}

/** Of the visitors `ids` names (a list or a subquery), those whose fields contain the keyword. */
export function visitorsByFields(db: Db, keyword: string, ids: number[] | ReturnType<typeof candidateIds>) {
  return db
    .selectFrom('visitors')
    .select('visitors.id')
    .where('visitors.id', 'in', ids)
    .where((eb) => fieldsContain(eb, keyword));
}

/**
 * Visitors found past this many (or estimated to be, from how densely the first steps found them) are
 * not gathered: their conversations are found by reading the newest messages instead. Gathering reads each
 * visitor's newest message (about 8 µs each on PostgreSQL at a million messages) and suits a surname, a few
 * thousand visitors; a phone's first digits find a tenth of a site's visitors, whose conversations fill the
 * first windows of the newest messages, which would have to be read far for a few thousand.
 */
export const GATHER_UP_TO = 20_000;
/**
 * What reading one message in a window costs, in reads of a visitor's newest message, on each database
 * (bench/README.md): on PostgreSQL at ten million messages 0.2–0.33 µs against 10 µs, with room to spare;
 * on SQLite, where the process reads every row of a window itself, 1.2–2.4 µs against 4–6 µs. With the
 * visitors' conversations counted first, the walk reads windows when the messages it expects to read cost
 * less than gathering every visitor.
 */
export const WINDOW_READ_COST: Record<DialectName, number> = { postgres: 0.05, sqlite: 0.4 };
/** Visitors found before their number is estimated from how densely they were found. */
const ESTIMATE_FROM = 50;
/** Visitors whose conversations one gathering step reads. */
const VISITORS_A_STEP = 200;
/** Messages the first window reads; each window is four times the last, up to WINDOW_MAX. */
const WINDOW_MIN = 2_000;
const WINDOW_MAX = 32_000;
/** Ids a statement names at most. */
const IDS_AT_ONCE = 1000;

/**
 * The conversations of the visitors a keyword finds (by their fields, `otherwise` by a remark or a
 * generated name), ranked by their newest message, best first. Gathering them all at once read every
 * conversation of every visitor found (seconds for `138` on a site's years); this walk reads no more
 * than the list's first pages need, in one of two ways decided on its first step:
 *
 * - few visitors: each one's newest message is read, and their conversations are given visitor by visitor
 *   in that order (no conversation of a visitor ranks above the visitor's newest message);
 * - many: the messages are read newest first, a window at a time, and each conversation given when its
 *   newest message is met, if its visitor is one the keyword finds. Conversations without a message are
 *   given last.
 * - few enough to know them all, but with more conversations than the list counts (a surname: some 12,000
 *   visitors at ten million messages): the list needs only its first page ranked, so the messages are read
 *   as for many, each visitor's membership known from the list already (`counted`). Reading each one's
 *   newest message instead was most of such a search.
 */
export class VisitorHitWalk implements HitWalk {
  below = Number.POSITIVE_INFINITY;
  done = false;
  private ready = false;
  private otherwise = new Set<number>();
  /** Gathering: the visitors found, newest message first, and how many have been given. */
  private visitors: { id: number; newest: number }[] | undefined;
  private given = 0;
  /** Reading the messages: the window's top, how many windows were read, and the conversations given. */
  private top = 0;
  private windows = 0;
  /** The first window's size: when the messages to read are expected (`countFirst`), about as many. */
  private firstWindow = WINDOW_MIN;
  private readonly seen = new Set<number>();
  /** Visitors met in the windows: whether the keyword finds them. */
  private readonly finds = new Map<number, boolean>();
  /** Every visitor the keyword finds, when all are known before the windows (then `finds` is not needed). */
  private members: Set<number> | undefined;
  /**
   * The conversations found are known to pass the list's count (`find.pastCap` said so): the walk reads the
   * newest messages for the ranking's first ones only, and the list needs no more of them for its count.
   */
  counted = false;

  constructor(
    private readonly db: Db,
    private readonly dialect: DialectName,
    private readonly keyword: string,
    private readonly find: {
      /** The few visitors the keyword finds other than by their fields. */
      otherwise: () => Promise<number[]>;
      /** Every visitor the keyword finds, as a subquery of their ids. */
      all: () => VisitorIds;
      /**
       * Whether the conversations of these visitors that the list keeps are more than its count's cap (read
       * from the first visitors only), and how many it keeps of a visitor's, on average, among those read.
       */
      counting?: {
        cap: number;
        /** How many of the ranking's first the list wants. */
        want: number;
        pastCap: (visitors: number[]) => Promise<{ past: boolean; perVisitor: number }>;
      };
    },
    private readonly gatherUpTo = GATHER_UP_TO,
    /** See WINDOW_READ_COST; 0 reads windows whenever the count passes the cap. */
    private readonly windowReadCost = WINDOW_READ_COST[dialect],
  ) {}

  async next(): Promise<Hit[]> {
    if (this.done) return [];
    if (!this.ready) await this.decide();
    return this.visitors ? this.gatherStep(this.visitors) : this.windowStep();
  }

  /** Walks the visitors found, newest first, until they are all known or known to be too many to gather. */
  private async decide(): Promise<void> {
    this.ready = true;
    this.otherwise = new Set(await this.find.otherwise());
    const walk = new CandidateWalk(this.db, this.dialect, 'visitor_search', this.keyword, { expected: this.gatherUpTo });
    const top = await this.maxId('visitors');
    const found = new Set<number>();
    for (;;) {
      // One step may hold every visitor to gather: on PostgreSQL a step through the GIN index reads the
      // keyword's whole entry, so many small steps read it many times (14 × 0.28 s for a surname).
      const ids = await walk.next(this.gatherUpTo + 1);
      if (ids.length === 0) break;
      // Visitors the index found for a keyword whose grams decide it need no look at their fields (nor their
      // rows): a surname's 12,000 rows read for it were most of its search at ten million messages.
      if (walk.checked) for (const id of ids) found.add(id);
      else
        for (let at = 0; at < ids.length; at += IDS_AT_ONCE)
          for (const { id } of await visitorsByFields(this.db, this.keyword, ids.slice(at, at + IDS_AT_ONCE)).execute()) found.add(id);
      // The share of all visitors walked so far, and the crowd the keyword would find at that rate.
      const walked = top > 0 ? Math.min(1, (top - walk.position) / top) : 1;
      const estimate = walked > 0 ? found.size / walked : found.size;
      if (found.size > this.gatherUpTo || (found.size >= ESTIMATE_FROM && estimate > this.gatherUpTo)) {
        this.top = (await this.maxId('messages')) + 1;
        return;
      }
    }
    for (const id of this.otherwise) found.add(id);
    // Every visitor the keyword finds is known: when their conversations are known to pass the list's count,
    // only the ranking's first ones are wanted, and the newest messages hold them (see `counted`).
    if (await this.countFirst(found)) {
      this.counted = true;
      this.members = found;
      return;
    }
    const visitors: { id: number; newest: number }[] = [];
    const ids = [...found];
    for (let at = 0; at < ids.length; at += IDS_AT_ONCE) visitors.push(...(await this.withNewest(ids.slice(at, at + IDS_AT_ONCE))));
    this.visitors = visitors.sort((a, b) => b.newest - a.newest || b.id - a.id);
  }

  /**
   * Whether these visitors' conversations pass the list's count, and the messages the ranking's first would
   * be found in cost less to read than each visitor's newest message (then `top` is set for the windows).
   */
  private async countFirst(visitors: Set<number>): Promise<boolean> {
    const counting = this.find.counting;
    if (!counting || visitors.size <= counting.cap) return false;
    const { past, perVisitor } = await counting.pastCap([...visitors].sort((a, b) => b - a));
    if (!past) return false;
    const messages = await this.maxId('messages');
    // Each conversation found is met once, at its newest message, somewhere among all the messages.
    const toRead = (counting.want * messages) / (visitors.size * perVisitor);
    if (toRead * this.windowReadCost >= visitors.size) return false;
    // Each window costs a statement and, on PostgreSQL, the visitors sent again: the first covers what is
    // expected, with room (a surname's 20 conversations came from three windows of 2,000 to 32,000).
    this.firstWindow = Math.min(WINDOW_MAX, Math.max(WINDOW_MIN, Math.ceil(2 * toRead)));
    this.top = messages + 1;
    return true;
  }

  /**
   * These visitors, each with its newest message's id (0 for none), read from the messages' index alone
   * (visitor, seq and id): no visitor's row, no message's row. A visitor's messages take their ids in the
   * order of their seqs, so the highest id is the newest.
   */
  private async withNewest(ids: number[]): Promise<{ id: number; newest: number }[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select((eb) => ['messages.visitor_id', eb.fn.max('messages.id').as('newest')])
      .where('messages.visitor_id', 'in', ids)
      .groupBy('messages.visitor_id')
      .execute();
    const newest = new Map(rows.map((row) => [row.visitor_id, Number(row.newest)]));
    return ids.map((id) => ({ id, newest: newest.get(id) ?? 0 }));
  }

  /** The conversations of the next visitors in order, each with its newest message. */
  private async gatherStep(visitors: { id: number; newest: number }[]): Promise<Hit[]> {
    const step = visitors.slice(this.given, this.given + VISITORS_A_STEP);
    this.given += step.length;
    const following = visitors[this.given];
    this.below = following ? following.newest + 1 : 0;
    this.done = following === undefined;
    if (step.length === 0) return [];
    const rows = await this.db
      .selectFrom('conversations')
      .innerJoin('visitors', 'visitors.id', 'conversations.visitor_id')
      .select((eb) => [
        'conversations.id',
        messagesIn(eb)
          .select((inner) => inner.fn.max('messages.id').as('hit'))
          .as('hit'),
      ])
      .where(
        'conversations.visitor_id',
        'in',
        step.map((visitor) => visitor.id),
      )
      .execute();
    return rows.map((row) => ({ id: row.id, hit: Number(row.hit ?? 0) }));
  }

  /**
   * The next window of messages, newest first: the conversations whose newest message is in it, of the
   * visitors the keyword finds. Past the oldest message, the conversations of those visitors that hold none.
   *
   * Three plain statements, each led by an index: the window's messages by id, which of their visitors the
   * keyword finds (remembered for the windows after), and those visitors' conversations. As one join,
   * PostgreSQL read every conversation of the site to hash them (0.1 s at a million messages).
   */
  private async windowStep(): Promise<Hit[]> {
    if (this.top <= 1) return this.withoutMessages();
    const size = Math.min(WINDOW_MAX, this.firstWindow * 4 ** this.windows);
    this.windows += 1;
    const bottom = Math.max(0, this.top - size);
    const members = this.members;
    let window = this.db.selectFrom('messages').select(['id', 'visitor_id', 'seq']).where('id', '>=', bottom).where('id', '<', this.top);
    // PostgreSQL keeps only the known visitors' messages itself: a full window's 32,000 rows took the process
    // longer to read than the database to find (60 against 30 ms at ten million messages). `+ 0` keeps it
    // walking the ids: led by the visitors' index instead, it read all their messages (80–100 ms).
    if (members && this.dialect === 'postgres') window = window.where(sql`messages.visitor_id + 0`, '=', sql`any(${[...members]})`);
    const messages = await window.orderBy('id', 'desc').execute();
    this.top = bottom;
    this.below = bottom;
    if (!members) {
      const unknown = [...new Set(messages.map((row) => row.visitor_id))].filter((id) => !this.finds.has(id));
      for (let at = 0; at < unknown.length; at += IDS_AT_ONCE) {
        const step = unknown.slice(at, at + IDS_AT_ONCE);
        for (const id of step) this.finds.set(id, this.otherwise.has(id));
        for (const { id } of await visitorsByFields(this.db, this.keyword, step).execute()) this.finds.set(id, true);
      }
    }
    const theirs = messages.filter((row) => (members ? members.has(row.visitor_id) : this.finds.get(row.visitor_id)));
    const visitors = [...new Set(theirs.map((row) => row.visitor_id))];
    const ranges: { id: number; visitor: number; first: number; last: number }[] = [];
    for (let at = 0; at < visitors.length; at += IDS_AT_ONCE) {
      const rows = await this.db
        .selectFrom('conversations')
        .innerJoin('visitors', 'visitors.id', 'conversations.visitor_id')
        .select((eb) => ['conversations.id', 'conversations.visitor_id', 'conversations.first_seq', lastSeq(eb).as('last_seq')])
        .where('conversations.visitor_id', 'in', visitors.slice(at, at + IDS_AT_ONCE))
        .execute();
      for (const row of rows) ranges.push({ id: row.id, visitor: row.visitor_id, first: row.first_seq, last: Number(row.last_seq) });
    }
    const byVisitor = new Map<number, typeof ranges>();
    for (const range of ranges) {
      const theirRanges = byVisitor.get(range.visitor);
      if (theirRanges) theirRanges.push(range);
      else byVisitor.set(range.visitor, [range]);
    }
    const hits: Hit[] = [];
    // Newest first: a conversation's first message met is its newest, and one met in a window before
    // keeps the message it was met at.
    for (const message of theirs) {
      const range = byVisitor.get(message.visitor_id)?.find((each) => each.first <= message.seq && message.seq <= each.last);
      if (!range || this.seen.has(range.id)) continue;
      this.seen.add(range.id);
      hits.push({ id: range.id, hit: message.id });
    }
    return hits;
  }

  /** The conversations without a message of the visitors the keyword finds: the walk's last step. */
  private async withoutMessages(): Promise<Hit[]> {
    this.done = true;
    this.below = 0;
    const rows = await this.db
      .selectFrom('conversations')
      .innerJoin('visitors', 'visitors.id', 'conversations.visitor_id')
      .select('conversations.id')
      .where('conversations.visitor_id', 'in', this.find.all())
      .where((eb) => eb.not(eb.exists(messagesIn(eb).select('messages.id'))))
      .execute();
    return rows.filter((row) => !this.seen.has(row.id)).map((row) => ({ id: row.id, hit: 0 }));
  }

  private async maxId(table: 'visitors' | 'messages'): Promise<number> {
    const found = await sql<{ id: number | null }>`select max(id) as id from ${sql.table(table)}`.execute(this.db);
    return Number(found.rows[0]?.id ?? 0);
  }
}
