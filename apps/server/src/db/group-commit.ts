import { sql, type Transaction } from 'kysely';
import type { Db } from './index.js';
import type { Database } from './schema.js';

interface Pending {
  work: (tx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: units of work that arrive while the database is busy (or within one tick) share one
 * transaction, so a burst of messages costs one commit (one WAL flush on PostgreSQL) instead of one each.
 * Each unit runs inside a savepoint of its own, in arrival order: a unit that throws (a resent onlyID, a
 * closed conversation) is rolled back alone and rejects alone, and its neighbours still commit. Every
 * unit resolves only once the shared transaction has committed, so an acknowledgement never precedes the
 * commit; when the commit itself fails, every unit of the batch rejects and none was acknowledged.
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
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      await this.db()
        .transaction()
        .execute(async (tx) => {
          for (const unit of batch) {
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
        });
    } catch (error) {
      for (const unit of batch) unit.reject(error);
      return;
    }
    for (const [index, unit] of batch.entries()) {
      const outcome = outcomes[index];
      if (outcome?.ok) unit.resolve(outcome.value);
      else unit.reject(outcome?.error);
    }
  }
}
