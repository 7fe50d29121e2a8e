import { setTimeout as sleep } from 'node:timers/promises';
import { Poller } from '../lib/poller.js';
import type { DialectName } from './dialect.js';
import type { Db } from './handles.js';
import { BACKFILL_STEP, backfillStep, type SearchIndex } from './search.js';

export interface BackfillLog {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface BackfillTimes {
  /** The rest between two steps, in which the server answers whatever came meanwhile. */
  pauseMs: number;
  /** How often progress is logged at most. */
  reportEveryMs: number;
  /** How soon a backfill that failed (the database away) is tried again. */
  retryMs: number;
}

const INDEXES: SearchIndex[] = ['message_search', 'visitor_search'];

/**
 * Indexes the rows written before the search indexes existed (`db/search.ts`), newest first, a step of
 * `BACKFILL_STEP` rows per transaction with a rest between steps, so a server upgraded over ten million
 * messages serves from its first second and never waits on the backfill for more than a step. Logs how far
 * it is; searches meanwhile look through the rows not yet reached. Any number of processes may run it: each
 * step starts from where the last one, of any process, ended.
 */
export class SearchBackfill {
  private readonly poller: Poller;

  constructor(
    private readonly db: Db,
    private readonly dialect: DialectName,
    private readonly log: BackfillLog,
    private readonly times: BackfillTimes = { pauseMs: 20, reportEveryMs: 10_000, retryMs: 60_000 },
    private readonly step = BACKFILL_STEP,
  ) {
    this.poller = new Poller(
      () => this.run(),
      (error) => this.log.error({ err: error }, 'search index backfill failed; it goes on later'),
    );
  }

  start(): void {
    this.poller.start(this.times.retryMs);
  }

  stop(): Promise<void> {
    return this.poller.stop();
  }

  private async run(): Promise<void> {
    for (const index of INDEXES) {
      let low = await backfillStep(this.db, this.dialect, index, this.step);
      if (low === 0) continue;
      const from = low;
      let reported = Date.now();
      this.log.info({ index, below: from }, 'search index backfill started');
      while (low > 0) {
        if (this.poller.stopped) return;
        await sleep(this.times.pauseMs);
        low = await backfillStep(this.db, this.dialect, index, this.step);
        if (Date.now() - reported >= this.times.reportEveryMs) {
          reported = Date.now();
          this.log.info({ index, done: `${Math.floor((100 * (from - low)) / from)} %` }, 'search index backfill');
        }
      }
      this.log.info({ index }, 'search index backfill done');
    }
  }
}
