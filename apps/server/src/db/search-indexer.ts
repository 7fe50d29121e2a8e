import { setTimeout as sleep } from 'node:timers/promises';
import { Poller } from '../lib/poller.js';
import type { DialectName } from './dialect.js';
import type { Db } from './handles.js';
import { BACKFILL_STEP, backfillStep, FORWARD_STEP, forwardStep, mergeStep, pendingStep, type SearchIndex } from './search.js';

export interface IndexerLog {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface IndexerTimes {
  /** How often the rows written since the last look are indexed. */
  everyMs: number;
  /** The rest between two steps of the backfill, in which the server answers whatever came meanwhile. */
  pauseMs: number;
  /** How often the backfill's progress is logged at most. */
  reportEveryMs: number;
}

export const INDEXER_TIMES: IndexerTimes = { everyMs: 100, pauseMs: 20, reportEveryMs: 10_000 };

const INDEXES: SearchIndex[] = ['message_search', 'visitor_search'];

/**
 * Keeps the search indexes (`db/search.ts`) up with their tables. Every `everyMs` it indexes the rows
 * written since its last look (on PostgreSQL the messages noted as pending), a few hundred per transaction.
 * It also indexes the rows written before the indexes existed, newest first, a step of `BACKFILL_STEP` rows
 * per transaction with a rest between steps, so a server upgraded over ten million messages serves from its first second
 * and never waits on it for more than a step; it logs how far it is. Searches meanwhile look through the
 * rows not yet reached. Any number of processes may run it: each step starts where the last one, of any
 * process, ended.
 */
export class SearchIndexer {
  private readonly poller: Poller;
  private backfilled = false;
  /**
   * The storage's two differences, chosen once: what indexes the rows written since the last look (on
   * PostgreSQL new visitors are indexed by their trigger, so only the pending messages are left), and what
   * follows a step (SQLite: a bounded part of the merging FTS5 would otherwise do in one go inside some
   * later write).
   */
  private readonly newRows: { index: SearchIndex; step: (limit: number) => Promise<number> }[];
  private readonly afterStep: (index: SearchIndex) => Promise<void>;

  constructor(
    private readonly db: Db,
    private readonly dialect: DialectName,
    private readonly log: IndexerLog,
    private readonly times: IndexerTimes = INDEXER_TIMES,
    private readonly steps = { forward: FORWARD_STEP, backfill: BACKFILL_STEP },
  ) {
    if (dialect === 'sqlite') {
      this.newRows = INDEXES.map((index) => ({ index, step: (limit) => forwardStep(db, index, limit) }));
      this.afterStep = async (index) => {
        await sleep(0);
        await mergeStep(db, index);
      };
    } else {
      this.newRows = [{ index: 'message_search', step: (limit) => pendingStep(db, limit) }];
      this.afterStep = async () => undefined;
    }
    this.poller = new Poller(
      () => this.run(),
      (error) => this.log.error({ err: error }, 'search indexing failed; it goes on later'),
    );
  }

  start(): void {
    this.poller.start(this.times.everyMs);
  }

  stop(): Promise<void> {
    return this.poller.stop();
  }

  private async run(): Promise<void> {
    await this.forward();
    if (!this.backfilled) await this.backfill();
  }

  /** The rows written since the last look, in steps, resting between them when there are many. */
  private async forward(): Promise<void> {
    for (const { index, step } of this.newRows) {
      let more = true;
      while (more) {
        if (this.poller.stopped) return;
        const indexed = await step(this.steps.forward);
        if (indexed === 0) break;
        more = indexed >= this.steps.forward;
        await this.afterStep(index);
        if (more) await sleep(this.times.pauseMs);
      }
    }
  }

  private async backfill(): Promise<void> {
    for (const index of INDEXES) {
      let low = await backfillStep(this.db, this.dialect, index, this.steps.backfill);
      if (low === 0) continue;
      const from = low;
      let reported = Date.now();
      this.log.info({ index, below: from }, 'search index backfill started');
      while (low > 0) {
        if (this.poller.stopped) return;
        await sleep(this.times.pauseMs);
        // New rows keep being indexed while the old ones are.
        await this.forward();
        low = await backfillStep(this.db, this.dialect, index, this.steps.backfill);
        await this.afterStep(index);
        if (Date.now() - reported >= this.times.reportEveryMs) {
          reported = Date.now();
          this.log.info({ index, done: `${Math.floor((100 * (from - low)) / from)} %` }, 'search index backfill');
        }
      }
      this.log.info({ index }, 'search index backfill done');
    }
    this.backfilled = true;
  }
}
