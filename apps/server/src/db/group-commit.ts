import { sql, type Transaction } from 'kysely';
import type { Db } from './index.js';
import type { Database } from './schema.js';

interface Pending {
  work: (tx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Ends an optimistic attempt at the unit that threw, so that the transaction rolls back. */
class UnitFailed extends Error {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {
    super('a unit of the batch failed');
  }
}

/**
 * Group commit: units of work that arrive while the database is busy (or within one tick) share one
 * transaction, so a burst of messages costs one commit (one WAL flush on PostgreSQL) instead of one each.
 *
 * A batch first runs optimistically, its units one after another with nothing between them: almost every
 * message goes through, and a savepoint around each would cost two statements (two round trips on
 * PostgreSQL) per message. When a unit throws (a resent onlyID, a closed conversation), that attempt is
 * rolled back whole, the unit is set aside with its error, and the batch runs again, this time each unit
 * in a savepoint of its own, so one refused unit never takes its neighbours down and a batch runs at most
 * twice. A unit's work must therefore touch nothing but the transaction: it may run twice.
 *
 * Every unit settles only once the shared transaction has committed, so an acknowledgement never precedes
 * the commit, and a unit refused because of an earlier one (the same onlyID twice) finds that one stored
 * when it looks; when the commit itself fails, every unit of the batch rejects and none was acknowledged.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private running = false;

  constructor(
    private readonly db: () => Db,
    /** The largest batch: bounds how long the first unit of a batch waits for the last. */
    private readonly maxBatch = 256,
  ) {}

  run<T>(work: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      // The first unit waits one turn of the event loop for those arriving with it; later ones join the
      // queue while a batch is being committed, and go in the next one.
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      await this.commit(batch);
    }
    this.running = false;
  }

  private async commit(batch: Pending[]): Promise<void> {
    let outcomes: Outcome[];
    try {
      outcomes = await this.optimistic(batch);
    } catch (error) {
      if (!(error instanceof UnitFailed)) return settleAll(batch, error);
      try {
        outcomes = await this.guarded(batch, error);
      } catch (again) {
        return settleAll(batch, again);
      }
    }
    for (const [index, unit] of batch.entries()) {
      const outcome = outcomes[index];
      if (outcome?.ok) unit.resolve(outcome.value);
      else unit.reject(outcome?.error);
    }
  }

  /** Every unit in one transaction, nothing between them; the first that throws rolls the attempt back. */
  private optimistic(batch: Pending[]): Promise<Outcome[]> {
    return this.db()
      .transaction()
      .execute(async (tx) => {
        const outcomes: Outcome[] = [];
        for (const [index, unit] of batch.entries()) {
          try {
            outcomes.push({ ok: true, value: await unit.work(tx) });
          } catch (error) {
            throw new UnitFailed(index, error);
          }
        }
        return outcomes;
      });
  }

  /** The batch again without the unit that failed, each unit in a savepoint of its own. */
  private guarded(batch: Pending[], failed: UnitFailed): Promise<Outcome[]> {
    return this.db()
      .transaction()
      .execute(async (tx) => {
        const outcomes: Outcome[] = [];
        for (const [index, unit] of batch.entries()) {
          if (index === failed.index) {
            outcomes.push({ ok: false, error: failed.error });
            continue;
          }
          await sql`SAVEPOINT unit`.execute(tx);
          try {
            outcomes.push({ ok: true, value: await unit.work(tx) });
            await sql`RELEASE SAVEPOINT unit`.execute(tx);
          } catch (error) {
            await sql`ROLLBACK TO SAVEPOINT unit`.execute(tx);
            await sql`RELEASE SAVEPOINT unit`.execute(tx);
            outcomes.push({ ok: false, error });
          }
        }
        return outcomes;
      });
  }
}

function settleAll(batch: Pending[], error: unknown): void {
  for (const unit of batch) unit.reject(error);
}
