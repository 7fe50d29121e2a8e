import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommit, type SharedStep } from './group-commit.js';
import type { Db } from './index.js';

/** A table of its own on an in-memory SQLite: what a unit stores, and whether it is there after the batch. */
let db: Db;
let statements: string[];

beforeEach(async () => {
  statements = [];
  const kysely = new Kysely<{ items: { name: string } }>({
    dialect: new SqliteDialect({ database: new SqliteDatabase(':memory:') }),
    log: (event) => {
      statements.push(event.query.sql);
    },
  });
  await sql`create table items (name text primary key)`.execute(kysely);
  db = kysely as unknown as Db;
});
afterEach(() => db.destroy());

const stored = async () => (await sql<{ name: string }>`select name from items order by name`.execute(db)).rows.map((row) => row.name);

function unitStoring(commits: GroupCommit, name: string, runs: Map<string, number>) {
  return commits.run(async (tx) => {
    runs.set(name, (runs.get(name) ?? 0) + 1);
    await sql`insert into items (name) values (${name})`.execute(tx);
    return name;
  });
}

describe('GroupCommit', () => {
  it('runs the units of one tick in one transaction without a savepoint between them', async () => {
    const commits = new GroupCommit(() => db);
    const runs = new Map<string, number>();
    const names = ['a', 'b', 'c', 'd'];
    expect(await Promise.all(names.map((name) => unitStoring(commits, name, runs)))).toEqual(names);
    expect(await stored()).toEqual(names);
    const control = statements.filter((text) => /^(begin|commit|savepoint|release|rollback)/i.test(text));
    expect(control.map((text) => text.toLowerCase())).toEqual(['begin', 'commit']);
  });

  it('refuses a failing unit alone: its neighbours commit, each unit runs at most twice', async () => {
    const commits = new GroupCommit(() => db);
    const runs = new Map<string, number>();
    const outcomes = await Promise.allSettled([
      unitStoring(commits, 'a', runs),
      unitStoring(commits, 'b', runs),
      // The same name again fails the primary key, in the middle of the batch.
      unitStoring(commits, 'a', runs),
      unitStoring(commits, 'c', runs),
      commits.run(async () => {
        throw new Error('refused by its own rule');
      }),
      unitStoring(commits, 'd', runs),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[4] as PromiseRejectedResult).reason)).toContain('refused by its own rule');
    expect(await stored()).toEqual(['a', 'b', 'c', 'd']);
    for (const count of runs.values()) expect(count).toBeLessThanOrEqual(3);
    // Those before the failure ran in the rolled-back attempt too; those after it only once.
    expect(runs.get('b')).toBe(2);
    expect(runs.get('d')).toBe(1);
  });

  it('settles a refused unit only after its neighbours committed, so it finds what they stored', async () => {
    const commits = new GroupCommit(() => db);
    const runs = new Map<string, number>();
    const first = unitStoring(commits, 'same', runs);
    const copy = unitStoring(commits, 'same', runs).catch(async () => stored());
    await first;
    expect(await copy).toEqual(['same']);
  });

  it('rejects every unit of a batch whose commit fails, and acknowledges none', async () => {
    const commits = new GroupCommit(() => db);
    const runs = new Map<string, number>();
    // A deferred foreign key is checked only at COMMIT: a unit breaking it lets the batch run, then fails the commit.
    await sql`pragma foreign_keys = on`.execute(db);
    await sql`create table owners (name text primary key)`.execute(db);
    await sql`create table owned (owner text references owners (name) deferrable initially deferred)`.execute(db);
    const orphan = commits.run(async (tx) => {
      await sql`insert into owned (owner) values ('nobody')`.execute(tx);
    });
    const outcomes = await Promise.allSettled([unitStoring(commits, 'y', runs), orphan, unitStoring(commits, 'z', runs)]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await stored()).toEqual([]);
  });

  it('runs a shared step once for the units of a batch, and without it, each unit alone, when it fails', async () => {
    const commits = new GroupCommit(() => db);
    let stepRuns = 0;
    // Stores every name in one statement; a name that was there already fails it, as a resent onlyID does.
    const storeAll: SharedStep<string, string> = {
      async runMany(tx, names) {
        stepRuns += 1;
        for (const name of names) await sql`insert into items (name) values (${name})`.execute(tx);
        return names.map((name) => (name.startsWith('skip') ? undefined : `${name} stored`));
      },
    };
    const unit = (name: string) =>
      commits.run(
        async (tx, shared) => {
          if (shared?.result !== undefined) return shared.result;
          // Not stored by the step (or the step did not run): the unit does it alone.
          if (!shared) await sql`insert into items (name) values (${name})`.execute(tx);
          return `${name} alone`;
        },
        storeAll,
        name,
      );
    expect(await Promise.all([unit('a'), unit('b'), unit('skip-c')])).toEqual(['a stored', 'b stored', 'skip-c alone']);
    expect(stepRuns).toBe(1);
    expect(await stored()).toEqual(['a', 'b', 'skip-c']);

    // 'a' again fails the step: the batch runs again guarded, each unit alone, and only 'a' is refused.
    const outcomes = await Promise.allSettled([unit('d'), unit('a'), unit('e')]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[0] as PromiseFulfilledResult<string>).value).toBe('d alone');
    expect(await stored()).toEqual(['a', 'b', 'd', 'e', 'skip-c']);
  });

  describe('a batch whose step is all it writes (alone)', () => {
    /** Stores the batch's names in one statement (atomic by itself); names starting with "skip" it leaves. */
    const storeInOne: SharedStep<string, string> = {
      async runMany(db, names) {
        const kept = names.filter((name) => !name.startsWith('skip'));
        if (kept.length > 0) await sql`insert into items (name) values ${sql.join(kept.map((name) => sql`(${name})`))}`.execute(db);
        return names.map((name) => (name.startsWith('skip') ? undefined : `${name} stored`));
      },
    };
    const works = new Map<string, number>();
    const unit = (commits: GroupCommit, name: string, alone = true) =>
      commits.run(
        async (tx, shared) => {
          works.set(name, (works.get(name) ?? 0) + 1);
          if (shared?.result !== undefined) return `${shared.result} in a transaction`;
          await sql`insert into items (name) values (${name})`.execute(tx);
          return `${name} alone`;
        },
        storeInOne,
        name,
        alone ? (result: string) => `${result} by itself` : undefined,
      );
    const control = () =>
      statements.filter((text) => /^(begin|commit|savepoint|release|rollback)/i.test(text)).map((text) => text.toLowerCase());

    it('commits the step by itself, without a transaction, and answers each unit from its result', async () => {
      works.clear();
      const commits = new GroupCommit(() => db);
      expect(await Promise.all(['a', 'b', 'c'].map((name) => unit(commits, name)))).toEqual([
        'a stored by itself',
        'b stored by itself',
        'c stored by itself',
      ]);
      expect(await stored()).toEqual(['a', 'b', 'c']);
      expect(control()).toEqual([]);
      expect(works.size).toBe(0);
    });

    it('leaves the units it wrote nothing for to a transaction after it', async () => {
      works.clear();
      const commits = new GroupCommit(() => db);
      expect(await Promise.all([unit(commits, 'a'), unit(commits, 'skip-b'), unit(commits, 'c')])).toEqual([
        'a stored by itself',
        'skip-b alone',
        'c stored by itself',
      ]);
      expect(await stored()).toEqual(['a', 'c', 'skip-b']);
      expect(control()).toEqual(['begin', 'commit']);
      expect([...works.keys()]).toEqual(['skip-b']);
    });

    it('keeps nothing of a failed statement: the batch goes the usual way, and only the failing unit is refused', async () => {
      const commits = new GroupCommit(() => db);
      await unit(commits, 'a');
      statements = [];
      const outcomes = await Promise.allSettled([unit(commits, 'd'), unit(commits, 'a'), unit(commits, 'e')]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[0] as PromiseFulfilledResult<string>).value).toBe('d alone');
      expect(await stored()).toEqual(['a', 'd', 'e']);
    });

    it('runs in a transaction when a unit of the batch has more to write', async () => {
      const commits = new GroupCommit(() => db);
      expect(await Promise.all([unit(commits, 'a'), unit(commits, 'b', false)])).toEqual([
        'a stored in a transaction',
        'b stored in a transaction',
      ]);
      expect(control()).toEqual(['begin', 'commit']);
    });
  });
});
