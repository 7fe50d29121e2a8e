import { sql, type Transaction } from 'kysely';
import type { Db, DbOrTx } from './index.js';
import type { Database } from './schema.js';

/**
 * A statement that the units of one batch share: run once for all of them at the start of the optimistic
 * attempt, with one input per unit that asked for it, answering one result per input (undefined where it
 * wrote nothing for that input). On PostgreSQL every statement is a round trip inside the batch, so a
 * batch of 200 messages is one round trip instead of 200.
 */
export interface SharedStep<Input, Result> {
  /** In the batch's transaction, or by itself where the batch is nothing else (see GroupCommit's `alone`). */
  runMany(db: DbOrTx, inputs: Input[]): Promise<(Result | undefined)[]>;
}

/**
 * What a unit's work is given of its shared step: `{ result }` when the step ran for the batch (result
 * undefined: it wrote nothing for this unit, which may do the work itself), undefined when it did not (the
 * guarded attempt): then the unit does that work itself, as it would without a step.
 */
export type Shared<Result> = { result: Result | undefined } | undefined;

interface Pending {
  work: (tx: Transaction<Database>, shared: Shared<unknown>) => Promise<unknown>;
  step: { step: SharedStep<unknown, unknown>; input: unknown } | undefined;
  /** The unit's value from its step's result when the step is all it writes (no statement, no refusal). */
  alone: ((result: unknown) => unknown) | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Ends an optimistic attempt at the unit that threw (-1: a shared step), so that the transaction rolls back. */
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
 * Units may also share a statement (SharedStep): in the optimistic attempt it runs once for all of them
 * before the units; when it throws, the attempt is rolled back and the guarded one runs without it, each
 * unit doing its part alone.
 *
 * A batch whose units all say that their step is all they write (`alone`: nothing more to write, nothing
 * to refuse once it has written) needs no transaction around the step: one statement commits by itself,
 * one round trip where BEGIN, the statement and COMMIT are three on PostgreSQL. When that statement fails,
 * it has kept nothing, and the batch goes the usual way (which sets a failing unit aside); the units it
 * wrote nothing for (a conversation to open) go the usual way after it.
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

  run<T>(work: (tx: Transaction<Database>) => Promise<T>): Promise<T>;
  /** A unit whose first part is `step` with `input`, shared with the batch's other units of that step. */
  run<T, Input, Result>(
    work: (tx: Transaction<Database>, shared: Shared<Result>) => Promise<T>,
    step: SharedStep<Input, Result>,
    input: Input,
    /** Given when the step is all this unit writes: its value from the step's result (see `alone` above). */
    alone?: (result: Result) => T,
  ): Promise<T>;
  run<T>(
    work: (tx: Transaction<Database>, shared: Shared<unknown>) => Promise<T>,
    step?: SharedStep<unknown, unknown>,
    input?: unknown,
    alone?: (result: unknown) => T,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, step: step && { step, input }, alone, resolve: resolve as (value: unknown) => void, reject });
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

  private async commit(all: Pending[]): Promise<void> {
    const batch = await this.alone(all);
    if (batch.length === 0) return;
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

  /**
   * The step's statement by itself, when it is all the batch writes; answers the units left for the usual
   * way: all of them when the statement failed (it kept nothing), else those it wrote nothing for.
   */
  private async alone(batch: Pending[]): Promise<Pending[]> {
    const step = batch[0]?.step?.step;
    if (!step || !batch.every((unit) => unit.alone && unit.step?.step === step)) return batch;
    let results: unknown[];
    try {
      results = await step.runMany(
        this.db(),
        batch.map((unit) => unit.step?.input),
      );
    } catch {
      // Nothing of it was kept (or, its answer lost with the connection, all of it: the usual way then
      // meets each unit's own row in the unique indexes, and the caller answers those as resends).
      return batch;
    }
    const left: Pending[] = [];
    for (const [index, unit] of batch.entries()) {
      const result = results[index];
      if (result === undefined) left.push(unit);
      else unit.resolve(unit.alone?.(result));
    }
    return left;
  }

  /**
   * Every unit in one transaction, nothing between them, after the shared steps; the first that throws
   * rolls the attempt back.
   */
  private optimistic(batch: Pending[]): Promise<Outcome[]> {
    return this.db()
      .transaction()
      .execute(async (tx) => {
        const shared = await this.sharedSteps(tx, batch);
        const outcomes: Outcome[] = [];
        for (const [index, unit] of batch.entries()) {
          try {
            outcomes.push({ ok: true, value: await unit.work(tx, shared[index]) });
          } catch (error) {
            throw new UnitFailed(index, error);
          }
        }
        return outcomes;
      });
  }

  /** Each shared step once for the units that asked for it, in their order; per unit what it is given. */
  private async sharedSteps(tx: Transaction<Database>, batch: Pending[]): Promise<Shared<unknown>[]> {
    const shared: Shared<unknown>[] = batch.map(() => undefined);
    const byStep = new Map<SharedStep<unknown, unknown>, number[]>();
    for (const [index, unit] of batch.entries()) {
      if (!unit.step) continue;
      const indexes = byStep.get(unit.step.step);
      if (indexes) indexes.push(index);
      else byStep.set(unit.step.step, [index]);
    }
    for (const [step, indexes] of byStep) {
      let results: unknown[];
      try {
        results = await step.runMany(
          tx,
          indexes.map((index) => batch[index]?.step?.input),
        );
      } catch (error) {
        throw new UnitFailed(-1, error);
      }
      for (const [at, index] of indexes.entries()) shared[index] = { result: results[at] };
    }
    return shared;
  }

  /** The batch again without the unit that failed (if one did), each unit in a savepoint of its own. */
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
            outcomes.push({ ok: true, value: await unit.work(tx, undefined) });
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
