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
});
