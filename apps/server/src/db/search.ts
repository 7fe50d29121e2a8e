import { type RawBuilder, sql } from 'kysely';
import { gramsAreExact, gramToken, keywordGrams, textGrams, textTokens } from '../lib/grams.js';
import type { DialectName } from './dialect.js';
import type { Db } from './handles.js';
import { containsText } from './sql.js';

/**
 * The databases' own indexes of what people search for (migration 037): the grams (`lib/grams.ts`) of
 * each message's text and of each visitor's searchable fields. SQLite holds them in FTS5 tables (ids only,
 * no positions), PostgreSQL in tables of text arrays under a GIN index.
 *
 * A row is never missing from a search, indexed or not: `search_backfill` keeps, per index, the marks
 * between which rows are indexed, and a search also looks through the rows outside them (`candidateIds`).
 * - Rows written before the indexes existed are below `low`, and are indexed newest first by the server's
 *   `SearchIndexer` (`low` 0 once it reached the first).
 * - A change of an indexed row is indexed again by triggers, in the transaction that makes it.
 * - A new row is indexed by the `SearchIndexer` a moment later, with the rows written beside it: indexing
 *   each in its own transaction cost the message path most of its time at 1,000 messages a second (SQLite:
 *   FTS5 writes a segment per transaction and merges them as they pile up, which doubled the p99;
 *   PostgreSQL: the grams, the GIN entries, and now and then the GIN index's pending list flushed inside a
 *   message's transaction, 100 ms and more). A few hundred at a time cost a fraction per row, and none of
 *   it in the writer's transaction.
 *   - SQLite takes the rows from `next` on: the connection that writes them commits them in id order.
 *   - On PostgreSQL the ids of transactions running side by side are not committed in order, so a mark
 *     could pass a row still to commit: there a trigger notes each new message's id in
 *     `message_search_pending` in the transaction that writes it (migration 043), and the indexer takes
 *     them from there. New visitors are still indexed by their trigger (they are not on the message path).
 */
export type SearchIndex = 'message_search' | 'visitor_search';

/** The visitor fields a keyword looks in: what the visitor index holds, and what a visitor search tests. */
export const SEARCHED_VISITOR_FIELDS = ['name', 'phone', 'email', 'user_id', 'attributes'] as const;

/**
 * A visitor field as the index holds it and a search tests it (SQL over `row`): attributes of none (`{}`,
 * as most visitors have) are nothing to search.
 */
export function searchedVisitorField(row: string, column: (typeof SEARCHED_VISITOR_FIELDS)[number]): string {
  return column === 'attributes' ? `nullif(${row}.attributes, '{}')` : `${row}.${column}`;
}

/** What the visitor index holds: the fields a keyword looks in, one per line. */
const VISITOR_TEXT = (row: string, newline: string) =>
  SEARCHED_VISITOR_FIELDS.map((column) => `coalesce(${searchedVisitorField(row, column)}, '')`).join(` || ${newline} || `);

/**
 * Whether a visitor has anything a keyword could find (SQL over `row`). Only those are in the visitor index:
 * most of a site's visitors leave no name, phone or email, and at five million visitors their rows made the
 * index's table ten times larger than what it had to hold, and a search read its matches from all of it.
 */
const VISITOR_SEARCHABLE = (row: string) =>
  `(${SEARCHED_VISITOR_FIELDS.map((column) => `coalesce(${searchedVisitorField(row, column)}, '') <> ''`).join(' or ')})`;

/** The rows of the source the index holds (SQL over `row`). */
const indexedRows = (index: SearchIndex, row: string) => (index === 'visitor_search' ? VISITOR_SEARCHABLE(row) : 'true');

/** The SQLite function the triggers call: the text's grams as the index's tokens. */
export function registerGrams(database: {
  function(name: string, options: { deterministic: boolean }, fn: (text: unknown) => string): unknown;
}): void {
  database.function('parley_grams', { deterministic: true }, (text) => (typeof text === 'string' ? textTokens(text) : ''));
}

/** PostgreSQL: each index's GIN index over its grams. */
const GIN_INDEX: Record<SearchIndex, string> = {
  message_search: 'create index message_search_grams on message_search using gin (grams)',
  visitor_search: 'create index visitor_search_grams on visitor_search using gin (grams)',
};

/**
 * PostgreSQL: writes many rows with the search indexes set aside, then indexes them all at once (the demo's
 * year of history). Row by row, the triggers and the GIN indexes took most of an hour for ten million
 * messages. The indexes `written` are filled by `write` itself, beside its rows; the others are filled
 * afterwards by the backfill in large steps; each GIN index is then built once over the whole. Nothing else
 * may write meanwhile: its rows would be left out of the index.
 */
export async function withSearchIndexedAfter(
  db: Db,
  write: () => Promise<void>,
  written: SearchIndex[],
  progress: (line: string) => void,
  /** Work on the rows written that needs no search index, run on another connection while the indexes are built. */
  alongside: () => Promise<void> = async () => {},
): Promise<void> {
  const sources = Object.entries(SOURCE) as [SearchIndex, 'messages' | 'visitors'][];
  for (const [index, source] of sources) {
    await sql`alter table ${sql.table(source)} disable trigger ${sql.raw(`${index}_sync`)}`.execute(db);
    await sql`drop index if exists ${sql.raw(`${index}_grams`)}`.execute(db);
  }
  let failure: { reason: unknown } | undefined;
  try {
    await write();
  } catch (reason) {
    failure = { reason };
  }
  // The indexes are built (and the triggers put back) whatever happened; the index builds are the
  // database's work on one core, and what runs beside them takes the other.
  const outcomes = await Promise.allSettled([buildIndexes(), failure ? Promise.resolve() : alongside()]);
  failure ??= outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;

  async function buildIndexes() {
    for (const [index, source] of sources) {
      const started = Date.now();
      if (!written.includes(index)) {
        // Every row written is older than the index: the backfill's mark goes above them, and its steps index them.
        await sql`update search_backfill set low = (select coalesce(max(id) + 1, 0) from ${sql.table(source)}) where name = ${index}`.execute(
          db,
        );
        while ((await backfillStep(db, 'postgres', index, 200_000)) > 0) {}
      }
      await db.transaction().execute(async (tx) => {
        await sql`set local maintenance_work_mem = '256MB'`.execute(tx);
        await sql.raw(GIN_INDEX[index]).execute(tx);
      });
      await sql`alter table ${sql.table(source)} enable trigger ${sql.raw(`${index}_sync`)}`.execute(db);
      progress(`${index} built in ${Date.now() - started} ms`);
    }
  }
}

/** Every statement of migration 037 on this database, in order. */
export function searchSchema(dialect: DialectName): string[] {
  if (dialect === 'sqlite') {
    const table = (name: SearchIndex) =>
      `create virtual table ${name} using fts5(grams, content='', contentless_delete=1, detail=none, tokenize='ascii')`;
    // FTS5 merges its segments on its own inside the write that makes one too many, tens of milliseconds
    // at times; the indexer merges a bounded amount after each of its steps instead (`mergeStep`). The
    // crisis bound is only reached if it falls far behind.
    const merging = (name: SearchIndex) => [
      `insert into ${name} (${name}, rank) values ('automerge', 0)`,
      `insert into ${name} (${name}, rank) values ('crisismerge', 64)`,
    ];
    return [
      table('message_search'),
      table('visitor_search'),
      ...merging('message_search'),
      ...merging('visitor_search'),
      // A row changed is indexed again at once; one the indexer has not reached yet, when it reaches it.
      `create trigger message_search_update after update of msg on messages begin
         delete from message_search where rowid = old.id;
         insert into message_search(rowid, grams) values (new.id, parley_grams(new.msg)); end`,
      `create trigger message_search_delete after delete on messages begin
         delete from message_search where rowid = old.id; end`,
      ...visitorSearchSync('sqlite'),
      `create trigger visitor_search_delete after delete on visitors begin
         delete from visitor_search where rowid = old.id; end`,
    ];
  }
  return [
    // The same set as lib/grams.ts: every character and every pair of neighbouring characters, lower-cased.
    `create function parley_grams(t text) returns text[] language sql immutable parallel safe as $$
       select coalesce(array_agg(distinct substr(x.l, i, n)), '{}'::text[])
       from (select lower(coalesce(t, '')) as l) as x
       cross join lateral generate_series(1, char_length(x.l)) as i
       cross join (values (1), (2)) as w(n)
       where i + n - 1 <= char_length(x.l) $$`,
    'create table message_search (id integer primary key, grams text[] not null)',
    GIN_INDEX.message_search,
    'create table visitor_search (id integer primary key, grams text[] not null)',
    GIN_INDEX.visitor_search,
    `create function message_search_sync() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        delete from message_search where id = old.id;
      else
        insert into message_search (id, grams) values (new.id, parley_grams(new.msg))
          on conflict (id) do update set grams = excluded.grams;
      end if;
      return null;
    end $$`,
    ...visitorSearchSync('postgres'),
    `create trigger message_search_sync after insert or delete or update of msg on messages
       for each row execute function message_search_sync()`,
    `create trigger visitor_search_sync after insert or delete or update of name, phone, email, user_id, attributes on visitors
       for each row execute function visitor_search_sync()`,
  ];
}

/**
 * How a visitor's change reaches the visitor index (migration 042): a visitor with something to search is
 * indexed again at once, one left with nothing is taken out. SQLite's new visitors are taken by the
 * indexer a moment later (`forwardStep`); PostgreSQL's by this trigger, on insert too.
 */
export function visitorSearchSync(dialect: DialectName): string[] {
  if (dialect === 'sqlite') {
    const text = VISITOR_TEXT('new', 'char(10)');
    return [
      'drop trigger if exists visitor_search_update',
      `create trigger visitor_search_update after update of name, phone, email, user_id, attributes on visitors begin
         delete from visitor_search where rowid = old.id;
         insert into visitor_search(rowid, grams) select new.id, parley_grams(${text}) where ${VISITOR_SEARCHABLE('new')}; end`,
    ];
  }
  return [
    `create or replace function visitor_search_sync() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        delete from visitor_search where id = old.id;
      elsif ${VISITOR_SEARCHABLE('new')} then
        insert into visitor_search (id, grams) values (new.id, parley_grams(${VISITOR_TEXT('new', 'chr(10)')}))
          on conflict (id) do update set grams = excluded.grams;
      else
        delete from visitor_search where id = new.id;
      end if;
      return null;
    end $$`,
  ];
}

/** The table the indexes' rows come from. */
const SOURCE: Record<SearchIndex, 'messages' | 'visitors'> = { message_search: 'messages', visitor_search: 'visitors' };

/**
 * The ids of the index's rows holding every gram of `keyword`: candidates, each still to be checked with
 * the "contains" test on its columns. Among the rows already indexed only (see `candidateIds`).
 */
export function indexedIds(dialect: DialectName, index: SearchIndex, keyword: string): RawBuilder<number> {
  const grams = keywordGrams(keyword);
  if (dialect === 'sqlite')
    return sql<number>`(select rowid from ${sql.table(index)} where ${sql.table(index)} match ${grams.map(gramToken).join(' AND ')})`;
  return sql<number>`(select id from ${sql.table(index)} where grams @> ${grams}::text[])`;
}

/**
 * The ids a search must check for `keyword`: the indexed rows holding every gram of it, and the rows not
 * yet in the index (below the backfill's mark and, on SQLite, from the indexer's forward mark on). One list,
 * so that the database looks each up by its id rather than weighing a condition of three parts.
 */
export function candidateIds(dialect: DialectName, index: SearchIndex, keyword: string): RawBuilder<number> {
  const source = sql.table(SOURCE[index]);
  const below = sql`select id from ${source} where id < (select low from search_backfill where name = ${index})`;
  const indexed = indexedIds(dialect, index, keyword);
  if (dialect === 'postgres') {
    if (index === 'visitor_search') return sql<number>`(select * from ${indexed} as indexed union all ${below})`;
    return sql<number>`(select * from ${indexed} as indexed union all ${below} union all select id from message_search_pending)`;
  }
  const after = sql`select id from ${source} where id >= (select next from search_backfill where name = ${index})`;
  return sql<number>`(select * from ${indexed} as indexed union all ${below} union all ${after})`;
}

/**
 * PostgreSQL: rows the walk reads in order a statement at most before it weighs the index again (a few
 * milliseconds of the database's time); the first statements read fewer.
 */
export const SCAN_WINDOW = 32_000;
/**
 * PostgreSQL: what a row found through the GIN index costs, in rows read in order. The index hands its
 * rows over in no order, so the newest few are had only by fetching every row holding the keyword's grams
 * and sorting them: 5.7 µs a row found against 0.6 µs a row read (`arrived`, a million messages).
 */
const INDEX_ROW_COST = 10;

/**
 * The rows a search must check for `keyword`, newest first, a batch at a time: the same rows as
 * `candidateIds`, walked down by id so that a search wanting the newest few reads no more than it needs.
 * Rows written since the indexer's mark (SQLite: `next`; PostgreSQL: the lowest message pending) come
 * first, then the indexed ones, then those the backfill has not reached; each batch is ids below the last
 * one given. An empty batch: the walk is over.
 *
 * SQLite's index gives its rows newest first and stops when asked, so the indexed rows are read through it.
 * PostgreSQL's GIN index cannot: each step would read every row holding the keyword's grams, seconds for a
 * common word in ten million messages. There the walk reads the newest rows in order, a window at a time,
 * testing each for the keyword, for as long as that is the cheaper way to the `expected` rows the search
 * will want (a word found in one message in a hundred: a few windows); a rare word it soon leaves to the
 * index, which then finds the few rows below at once.
 */
export class CandidateWalk {
  /** The walk's position: ids below it are still to come (none given yet: every id). */
  private below = Number.POSITIVE_INFINITY;
  private marks: { low: number; next: number } | undefined;
  /** PostgreSQL: rows read in order so far, those found among them, and whether the index took over. */
  private scanned = 0;
  private found = 0;
  private windows = 0;
  private indexTookOver = false;
  private lastFromIndex = false;

  constructor(
    private readonly db: Db,
    private readonly dialect: DialectName,
    private readonly index: SearchIndex,
    private readonly keyword: string,
    private readonly options: {
      /** How many rows the search is likely to take from the walk (its count's bound). */
      expected?: number;
      /** PostgreSQL: rows read in order a statement (SCAN_WINDOW). */
      window?: number;
    } = {},
  ) {}

  /** The walk's position: every id still to come is below it (at the start, infinity; at the end, 0). */
  get position(): number {
    return this.below;
  }

  /**
   * Whether the ids of the last step are known to contain the keyword: they came from the index and the
   * keyword's grams decide it (`gramsAreExact`). Otherwise they are candidates, to be checked.
   */
  get checked(): boolean {
    return this.lastFromIndex && gramsAreExact(this.keyword);
  }

  async next(limit: number): Promise<number[]> {
    this.marks ??= await this.readMarks();
    const marks = this.marks;
    const source = sql.table(SOURCE[this.index]);
    const unindexed = async (floor: number) => {
      const found = await sql<{ id: number }>`select id from ${source}
        where ${this.under(sql.ref('id'))} and id >= ${floor} order by id desc limit ${limit}`.execute(this.db);
      return found.rows.map((row) => Number(row.id));
    };
    let ids: number[] = [];
    let reached: number | undefined;
    if (this.below > marks.next) {
      ids = await unindexed(marks.next);
      if (ids.length === 0) this.below = marks.next;
    }
    this.lastFromIndex = false;
    if (ids.length === 0 && this.below > marks.low) {
      ({ ids, reached } = await this.indexed(marks.low, limit));
      if (ids.length === 0) this.below = marks.low;
      else this.lastFromIndex = true;
      // Fewer than asked, from the index itself: it holds no more of them, and the next step does not ask it
      // again (on PostgreSQL that would read the keyword's whole entry once more).
      if (reached === undefined && ids.length < limit) reached = marks.low;
    }
    if (ids.length === 0 && this.below > 0) {
      ids = await unindexed(0);
      reached = undefined;
    }
    this.below = reached ?? ids[ids.length - 1] ?? 0;
    return ids;
  }

  /**
   * Indexed rows holding every gram of the keyword, from `low` up to the walk's position, and on PostgreSQL
   * the lowest id read (`reached`) when the rows were read in order.
   */
  private async indexed(low: number, limit: number): Promise<{ ids: number[]; reached?: number }> {
    const grams = keywordGrams(this.keyword);
    const table = sql.table(this.index);
    if (this.dialect === 'sqlite') {
      const found = await sql<{ id: number }>`select rowid as id from ${table} where ${table} match ${grams.map(gramToken).join(' AND ')}
        and ${this.under(sql.ref('rowid'))} and rowid >= ${low} order by rowid desc limit ${limit}`.execute(this.db);
      return { ids: found.rows.map((row) => Number(row.id)) };
    }
    if (!this.indexTookOver) {
      const read = await this.inOrder(low, limit);
      if (read) return read;
    }
    const found = await sql<{ id: number }>`select id from ${table} where grams @> ${grams}::text[]
      and ${this.under(sql.ref('id'))} and id >= ${low} order by id desc limit ${limit}`.execute(this.db);
    return { ids: found.rows.map((row) => Number(row.id)) };
  }

  /**
   * PostgreSQL: the rows from `low` up to the walk's position that contain the keyword, read newest first a
   * window at a time until some are found or `low` is reached; undefined once the index is the cheaper way
   * (then it takes over for the rest of the walk).
   */
  private async inOrder(low: number, limit: number): Promise<{ ids: number[]; reached: number } | undefined> {
    const source = sql.table(SOURCE[this.index]);
    const text = sql.raw(rowText(this.index, this.dialect));
    let top = Number.isFinite(this.below) ? this.below : await this.topId();
    while (top > low) {
      if (this.scanned > 0 && !this.readingIsCheaper(top - low)) {
        this.indexTookOver = true;
        return undefined;
      }
      // The first windows are small, so a rare word costs little before the index takes over; each is
      // four times the last up to the full window.
      const full = this.options.window ?? SCAN_WINDOW;
      const bottom = Math.max(low, top - Math.min(full, Math.ceil(full / 16) * 4 ** this.windows));
      this.windows += 1;
      const found = await sql<{ id: number }>`select id from ${source}
        where id >= ${bottom} and id < ${top} and ${containsText(text, this.keyword)}
        order by id desc limit ${limit}`.execute(this.db);
      const ids = found.rows.map((row) => Number(row.id));
      // A full batch may leave rows of the window unread: the next step reads on from its last.
      const reached = ids.length === limit ? (ids[ids.length - 1] as number) : bottom;
      this.scanned += top - reached;
      this.found += ids.length;
      if (ids.length > 0) return { ids, reached };
      top = reached;
    }
    return { ids: [], reached: low };
  }

  /**
   * Whether reading on in order costs less than the index would for the `rows` below: reading finds the
   * rows still expected at the rate found so far; the index fetches every row below holding the keyword.
   */
  private readingIsCheaper(rows: number): boolean {
    if (this.found === 0) return false;
    const rate = this.found / this.scanned;
    const toRead = Math.max((this.options.expected ?? 1000) - this.found, 0) / rate;
    return toRead < rate * rows * INDEX_ROW_COST;
  }

  private async topId(): Promise<number> {
    const found = await sql<{ id: number | null }>`select max(id) as id from ${sql.table(SOURCE[this.index])}`.execute(this.db);
    return Number(found.rows[0]?.id ?? 0) + 1;
  }

  /** `column` below the walk's position (at its start, any). */
  private under(column: RawBuilder<unknown> | ReturnType<typeof sql.ref>) {
    return Number.isFinite(this.below) ? sql`${column} < ${this.below}` : sql`true`;
  }

  /**
   * On PostgreSQL `next` is the lowest message still pending (every row from `low` up to it is indexed; the
   * rows from it on are read as they are); new visitors are indexed by their trigger, so none is pending.
   */
  private async readMarks(): Promise<{ low: number; next: number }> {
    const next =
      this.dialect === 'sqlite'
        ? sql`next`
        : this.index === 'message_search'
          ? sql`(select min(id) from message_search_pending)`
          : sql`null`;
    const found = await sql<{
      low: number;
      next: number | null;
    }>`select low, ${next} as next from search_backfill where name = ${this.index}`.execute(this.db);
    const row = found.rows[0];
    const low = Number(row?.low ?? 0);
    return { low, next: row?.next === null || row?.next === undefined ? Number.POSITIVE_INFINITY : Number(row.next) };
  }
}

/** The grams of a row of the index's table, as SQL over the row's columns. */
function rowText(index: SearchIndex, dialect: DialectName): string {
  return index === 'message_search' ? 'msg' : VISITOR_TEXT(SOURCE[index], dialect === 'sqlite' ? 'char(10)' : 'chr(10)');
}

/** Rows a step of the forward indexer takes at most: about 1 ms of the database's time per hundred. */
export const FORWARD_STEP = 500;

/**
 * SQLite: indexes the rows written since the last step (from `next` on), at most `step`, in one
 * transaction; answers how many (as many as `step`: more may be left). The same connection writes the messages, so every row below
 * the new mark has been committed.
 */
export async function forwardStep(db: Db, index: SearchIndex, step = FORWARD_STEP): Promise<number> {
  const source = SOURCE[index];
  return db.transaction().execute(async (tx) => {
    const state = await sql<{ next: number }>`select next from search_backfill where name = ${index}`.execute(tx);
    const next = Number(state.rows[0]?.next ?? 0);
    const top = await sql<{ id: number | null; n: number }>`
      select max(id) as id, count(*) as n from (select id from ${sql.table(source)} where id >= ${next} order by id limit ${step}) as chunk`.execute(
      tx,
    );
    const last = top.rows[0]?.id;
    if (last === null || last === undefined) return 0;
    await sql`insert or replace into ${sql.table(index)} (rowid, grams)
      select id, parley_grams(${sql.raw(rowText(index, 'sqlite'))}) from ${sql.table(source)}
      where id >= ${next} and id <= ${last} and ${sql.raw(indexedRows(index, source))}`.execute(tx);
    await sql`update search_backfill set next = ${Number(last) + 1} where name = ${index}`.execute(tx);
    return Number(top.rows[0]?.n);
  });
}

/**
 * PostgreSQL: indexes messages noted as pending (migration 043), at most `step`, oldest first, in one
 * transaction; answers how many it took (as many as `step`: more may be left). Processes running it side by
 * side take different rows (a row one of them holds is skipped by the others). The grams are made here
 * (`textGrams`, the keyword's own), not by `parley_grams`: in SQL they were four fifths of the step's time.
 * A row a trigger indexed meanwhile (its text changed) is left as the trigger wrote it.
 */
export async function pendingStep(db: Db, step = FORWARD_STEP): Promise<number> {
  return db.transaction().execute(async (tx) => {
    // Each message read by its key: joined, the planner may read every message to hash them.
    const taken = await sql<{ id: number; msg: string | null }>`
      with taken as (
        delete from message_search_pending where id in (
          select id from message_search_pending order by id limit ${step} for update skip locked)
        returning id
      )
      select taken.id, (select msg from messages where messages.id = taken.id) as msg from taken`.execute(tx);
    await insertMessageGrams(
      tx,
      taken.rows.flatMap((row) => (row.msg === null ? [] : [{ id: Number(row.id), msg: row.msg }])),
    );
    return taken.rows.length;
  });
}

/**
 * PostgreSQL: the messages' rows of the message index, grams made in the process (`textGrams`, the same sets
 * as `parley_grams`), as one JSON parameter whatever their number. A row already there is left as it is.
 */
export async function insertMessageGrams(db: Db, messages: { id: number; msg: string }[]): Promise<void> {
  if (messages.length === 0) return;
  const rows = messages.map((message) => ({ id: message.id, grams: textGrams(message.msg) }));
  await sql`insert into message_search (id, grams)
    select (row->>'id')::integer, array(select jsonb_array_elements_text(row->'grams'))
    from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) as row
    on conflict (id) do nothing`.execute(db);
}

/**
 * PostgreSQL, migration 043: the table of messages still to index, and the messages' trigger that notes a
 * new one there instead of indexing it (a change is indexed at once, a deletion taken out of both).
 */
export function messageSearchPending(): string[] {
  return [
    'create table message_search_pending (id integer primary key)',
    `create or replace function message_search_sync() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into message_search_pending (id) values (new.id);
      elsif tg_op = 'UPDATE' then
        insert into message_search (id, grams) values (new.id, parley_grams(new.msg))
          on conflict (id) do update set grams = excluded.grams;
      else
        delete from message_search where id = old.id;
        delete from message_search_pending where id = old.id;
      end if;
      return null;
    end $$`,
  ];
}

/** Rows a step of the backfill indexes at most: a step holds the database for a few tens of milliseconds. */
export const BACKFILL_STEP = 2000;

/** Pages of the index one merge step rewrites at most: a few milliseconds of the database's time. */
export const MERGE_PAGES = 50;

/** SQLite: merges a bounded part of the index's segments, in a transaction of its own. */
export async function mergeStep(db: Db, index: SearchIndex, pages = MERGE_PAGES): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await sql`insert into ${sql.table(index)} (${sql.table(index)}, rank) values ('merge', ${pages})`.execute(tx);
  });
}

/**
 * Indexes the newest rows not yet indexed, at most `step`, in one transaction; answers the id below which
 * rows are left (0: the index is complete). A row changed meanwhile was indexed again by its trigger: the
 * backfill writes the same grams over it (on PostgreSQL it leaves the trigger's).
 */
export async function backfillStep(db: Db, dialect: DialectName, index: SearchIndex, step = BACKFILL_STEP): Promise<number> {
  const source = SOURCE[index];
  const text = rowText(index, dialect);
  return db.transaction().execute(async (tx) => {
    // On PostgreSQL a second process's step waits for this one and starts where it ends.
    const lock = dialect === 'postgres' ? sql` for update` : sql``;
    const state = await sql<{ low: number }>`select low from search_backfill where name = ${index}${lock}`.execute(tx);
    const low = Number(state.rows[0]?.low ?? 0);
    if (low <= 0) return 0;
    const bottom = await sql<{ id: number | null }>`
      select min(id) as id from (select id from ${sql.table(source)} where id < ${low} order by id desc limit ${step}) as chunk`.execute(
      tx,
    );
    const from = Number(bottom.rows[0]?.id ?? 0);
    if (from > 0) {
      const rows = sql`select id, parley_grams(${sql.raw(text)}) from ${sql.table(source)}
        where id >= ${from} and id < ${low} and ${sql.raw(indexedRows(index, source))}`;
      if (dialect === 'sqlite') await sql`insert or replace into ${sql.table(index)} (rowid, grams) ${rows}`.execute(tx);
      else await sql`insert into ${sql.table(index)} (id, grams) ${rows} on conflict (id) do nothing`.execute(tx);
    }
    await sql`update search_backfill set low = ${from} where name = ${index}`.execute(tx);
    return from;
  });
}
