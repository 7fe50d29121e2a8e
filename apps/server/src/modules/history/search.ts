import type { DialectName } from '../../db/dialect.js';
import type { Db } from '../../db/index.js';
import { CandidateWalk, candidateIds } from '../../db/search.js';
import { containsText } from '../../db/sql.js';
import { lastSeq } from './ranges.js';
import { GATHER_UP_TO, type Hit, type HitWalk, VisitorHitWalk, visitorsByFields, WINDOW_READ_COST } from './visitor-hits.js';

/**
 * Conversations a keyword's list counts at most: past this many its total is given as "more than"
 * (`more`). A common word is in a fifth of all conversations; counting every one would read each of
 * its messages, seconds on a site's years of history, for a figure nobody pages through.
 */
export const COUNT_CAP = 1000;
/**
 * Candidate messages checked a step: enough that a word found everywhere passes the count's cap in one
 * (each step asks the index again, and on PostgreSQL that reads the keyword's whole entry).
 */
const STEP = 2000;
/** Ids a statement names at most (SQLite's limit on a statement's parameters is far above). */
const IDS_AT_ONCE = 1000;
/** Visitors whose conversations a count before the ranking reads at most (see `pastCap`). */
const COUNT_VISITORS_AT_MOST = 3000;

/** A keyword's conversations or visitors, best first (see `ranked`, `newestVisitors`), and how many there are. */
export interface RankedIds {
  ids: number[];
  total: number;
  /** More than `total` were found: the count stopped at COUNT_CAP. */
  more: boolean;
}

/**
 * What a keyword finds, through the search indexes (`db/search.ts`): the index narrows the rows down to
 * those holding every gram of the keyword, and each is then checked with the same "contains" test the
 * lists always used, so the index makes a search fast, never different. Rows the indexer has not reached
 * yet are looked through as before.
 */
export class KeywordSearch {
  constructor(
    private readonly db: Db,
    private readonly dialect: DialectName,
    private readonly countCap = COUNT_CAP,
    /** Visitors found past which their conversations are found by reading the messages (`VisitorHitWalk`). */
    private readonly gatherUpTo = GATHER_UP_TO,
    /** See `WINDOW_READ_COST` (`VisitorHitWalk`); the database's own by default. */
    private readonly windowReadCost = WINDOW_READ_COST[dialect],
  ) {}

  /**
   * The visitors a keyword finds, as a subquery of their ids: by name, phone, email, the site's user id or
   * any attribute the site gave (CONTRACT §13), by an agent's remark, and `V0042` finds the unnamed visitor
   * 42. One list (a union), not several joined by "or": PostgreSQL reads "in this or in that" by testing
   * every row of the table against both, and a union once from its few rows.
   */
  visitorIds(keyword: string) {
    return visitorsByFields(this.db, keyword, candidateIds(this.dialect, 'visitor_search', keyword)).unionAll(
      this.visitorsOtherwise(keyword),
    );
  }

  /** The few visitors a keyword finds other than by their fields: by an agent's remark, and `V0042`. */
  private visitorsOtherwise(keyword: string) {
    // Remarks are few (one per visitor an agent wrote about): looked through without an index.
    const byRemark = this.db
      .selectFrom('visitor_notes')
      .select('visitor_notes.visitor_id as id')
      .where(containsText('visitor_notes.remark', keyword));
    const generated = /^v0*(\d{1,9})$/i.exec(keyword);
    if (!generated) return byRemark;
    return byRemark.unionAll(
      this.db.selectFrom('visitors').select('visitors.id').where('visitors.id', '=', Number(generated[1])).where('visitors.name', '=', ''),
    );
  }

  /**
   * The visitors a keyword finds, newest first (by id: a visitor's id follows its arrival), that `keep`
   * lets through. Those found by their fields are walked down the visitor index a step at a time until the
   * first `want` are settled and more than the cap are found, or none is left: a surname or a phone's
   * first digits find a good part of a site's visitors, and gathering them all took seconds at millions.
   */
  async newestVisitors(keyword: string, keep: (ids: number[]) => Promise<number[]>, want: number): Promise<RankedIds> {
    const otherwise = (await this.visitorsOtherwise(keyword).execute()).map((row) => row.id);
    const found = new Set(await keepAll(keep, otherwise));
    const newestFirst = () => [...found].sort((a, b) => b - a);
    const walk = new CandidateWalk(this.db, this.dialect, 'visitor_search', keyword, { expected: this.countCap });
    for (;;) {
      const ids = await walk.next(STEP);
      const below = ids[ids.length - 1];
      if (below === undefined) return { ids: newestFirst(), total: found.size, more: false };
      const matching = (await visitorsByFields(this.db, keyword, ids).execute()).map((row) => row.id).filter((id) => !found.has(id));
      for (const id of await keepAll(keep, matching)) found.add(id);
      // Every visitor still unread has an id below the step's last.
      if (found.size > this.countCap && settled(found, below) >= want) return { ids: newestFirst(), total: this.countCap, more: true };
    }
  }

  /**
   * The conversations a keyword finds: those of the visitors it finds, and those holding a message that
   * contains it. One list, so the database builds it once for the page and once for the count.
   */
  conversationIds(keyword: string) {
    return this.db
      .selectFrom('conversations as of')
      .select('of.id')
      .where('of.visitor_id', 'in', this.visitorIds(keyword))
      .union(this.conversationsWithMessage(keyword));
  }

  /**
   * The conversations a keyword finds, ranked by their newest match: the newest message containing it, or
   * for a visitor the keyword finds (by name, phone…), the conversation's newest message. `keep` answers
   * which of some conversations the list's other filters let through. Two walks give them best first, a
   * step at a time: the messages containing the keyword, and the conversations of the visitors it finds
   * (`VisitorHitWalk`). The one further behind steps next, until the first `want` are settled (nothing
   * still to come can rank above them) and more than the cap are found (or the visitors' walk counted
   * more than the cap of theirs before it ranked them: `pastCap`), or both are over: the count is exact
   * below the cap.
   */
  async ranked(keyword: string, keep: (ids: number[]) => Promise<number[]>, want: number): Promise<RankedIds> {
    const found = new Map<number, number>();
    /** Conversations the other filters turned away: not asked about again. */
    const turnedAway = new Set<number>();
    const byVisitors = new VisitorHitWalk(
      this.db,
      this.dialect,
      keyword,
      {
        otherwise: async () => (await this.visitorsOtherwise(keyword).execute()).map((row) => row.id),
        all: () => this.visitorIds(keyword),
        counting: { cap: this.countCap, want, pastCap: (visitors) => this.pastCap(visitors, keep) },
      },
      this.gatherUpTo,
      this.windowReadCost,
    );
    const walks: HitWalk[] = [this.messageWalk(keyword), byVisitors];
    for (;;) {
      const open = walks.filter((walk) => !walk.done);
      const behind = open.reduce<HitWalk | undefined>((most, walk) => (most && most.below >= walk.below ? most : walk), undefined);
      if (!behind) return { ids: best(found), total: found.size, more: false };
      const hits = (await behind.next()).filter((row) => !turnedAway.has(row.id));
      const fresh: Hit[] = [];
      for (const row of hits) {
        const known = found.get(row.id);
        // Found before: it keeps the better of its two ranks (a visitor's conversation may have been met first
        // through an older message containing the keyword).
        if (known === undefined) fresh.push(row);
        else if (row.hit > known) found.set(row.id, row.hit);
      }
      const kept = new Set(
        await keepAll(
          keep,
          fresh.map((row) => row.id),
        ),
      );
      for (const { id, hit } of fresh) {
        if (kept.has(id)) found.set(id, Math.max(hit, found.get(id) ?? 0));
        else turnedAway.add(id);
      }
      const bound = Math.max(0, ...walks.filter((walk) => !walk.done).map((walk) => walk.below));
      if ((found.size > this.countCap || byVisitors.counted) && settled(found.values(), bound) >= want)
        return { ids: best(found), total: this.countCap, more: true };
    }
  }

  /**
   * Whether more than the cap of these visitors' conversations pass `keep` (the list's other filters), and
   * how many pass of a visitor's on average, reading at most COUNT_VISITORS_AT_MOST visitors' (past that,
   * with the count still under the cap, the filters turn most away: gathering the visitors suits them).
   */
  private async pastCap(visitors: number[], keep: (ids: number[]) => Promise<number[]>): Promise<{ past: boolean; perVisitor: number }> {
    let kept = 0;
    let read = 0;
    for (let at = 0; at < Math.min(visitors.length, COUNT_VISITORS_AT_MOST) && kept <= this.countCap; at += IDS_AT_ONCE) {
      const step = visitors.slice(at, Math.min(at + IDS_AT_ONCE, COUNT_VISITORS_AT_MOST));
      const theirs = await this.db
        .selectFrom('conversations')
        .innerJoin('visitors', 'visitors.id', 'conversations.visitor_id')
        .select('conversations.id')
        .where('conversations.visitor_id', 'in', step)
        .execute();
      kept += (
        await keepAll(
          keep,
          theirs.map((row) => row.id),
        )
      ).length;
      read += step.length;
    }
    return { past: kept > this.countCap, perVisitor: kept / Math.max(1, read) };
  }

  /** The messages containing the keyword, newest first, as their conversations' hits. */
  private messageWalk(keyword: string): HitWalk {
    const candidates = new CandidateWalk(this.db, this.dialect, 'message_search', keyword, { expected: this.countCap });
    const walk = {
      below: Number.POSITIVE_INFINITY,
      done: false,
      next: async (): Promise<Hit[]> => {
        const ids = await candidates.next(STEP);
        const last = ids[ids.length - 1];
        if (last === undefined) {
          walk.done = true;
          walk.below = 0;
          return [];
        }
        // Every message still to come is below the step's last.
        walk.below = last;
        // Walking down, a conversation's first hit is its newest.
        return this.messageHits(ids, keyword);
      },
    };
    return walk;
  }

  /** Of these messages, those containing the keyword: each one's conversation and its newest such message. */
  private async messageHits(ids: number[], keyword: string) {
    const rows = await this.matchingMessages(ids, keyword)
      .select((eb) => ['conversations.id', eb.fn.max('messages.id').as('hit')])
      .groupBy('conversations.id')
      .execute();
    return rows.map((row) => ({ id: row.id, hit: Number(row.hit) }));
  }

  /** The conversations holding a message that contains the keyword. */
  private conversationsWithMessage(keyword: string) {
    return this.matchingMessages(candidateIds(this.dialect, 'message_search', keyword), keyword).select('conversations.id');
  }

  /**
   * Messages among `ids` that contain the keyword (withdrawn messages and system tips aside), each beside
   * the conversation holding it (`ranges.ts`).
   */
  private matchingMessages(ids: number[] | ReturnType<typeof candidateIds>, keyword: string) {
    return (
      this.db
        .selectFrom('messages')
        // A cross join keeps SQLite's join order: from the few messages found to their conversations, never
        // through every conversation (a plain join's order is the planner's guess).
        .crossJoin('conversations')
        .innerJoin('visitors', 'visitors.id', 'conversations.visitor_id')
        .whereRef('conversations.visitor_id', '=', 'messages.visitor_id')
        .whereRef('messages.seq', '>=', 'conversations.first_seq')
        .where((eb) => eb('messages.seq', '<=', lastSeq(eb)))
        .where('messages.id', 'in', ids)
        .where('messages.withdrawn', '=', 0)
        .where('messages.role', '<>', 'tip')
        .where(containsText('messages.msg', keyword))
    );
  }
}

/** How many of a walk's finds rank at or above `below`, its position: nothing still unread can pass them. */
function settled(ranks: Iterable<number>, below: number): number {
  let count = 0;
  for (const rank of ranks) if (rank >= below) count += 1;
  return count;
}

/** The conversations found, best first: the newest hit, then the newest conversation. */
function best(found: Map<number, number>): number[] {
  return [...found].sort(([a, hitA], [b, hitB]) => hitB - hitA || b - a).map(([id]) => id);
}

/** `keep` over any number of ids, a statement's worth at a time. */
async function keepAll(keep: (ids: number[]) => Promise<number[]>, ids: number[]): Promise<number[]> {
  const kept: number[] = [];
  for (let at = 0; at < ids.length; at += IDS_AT_ONCE) kept.push(...(await keep(ids.slice(at, at + IDS_AT_ONCE))));
  return kept;
}
