import { type Compilable, CompiledQuery, type DialectAdapter, type RawBuilder } from 'kysely';
import type { Db, DbOrTx } from './handles.js';

/** Marks where a named value goes; a string, so the query builder takes it as an ordinary value. */
const MARK = '\u0000prepared:';

/**
 * The SQL texts of the queries built here, and the name each has as a server-side prepared statement on
 * PostgreSQL (see openPostgres): parsed and planned once per connection, not at every run. Only these few
 * are named, so a connection holds a bounded number of them.
 */
const statementNames = new Map<string, string>();

/** The prepared statement name of a query built here; undefined for any other SQL. */
export function statementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

/**
 * Runs a statement on the connection a transaction holds, without the query builder's layers: its rows,
 * and for a statement that returns none the rowid of the last row the connection inserted.
 */
export type DirectRunner = (sql: string, parameters: readonly unknown[]) => { rows: unknown[]; insertId: number | undefined };

/** Per storage (by its dialect adapter): how its transactions run the statements built here directly. */
const directRunners = new WeakMap<DialectAdapter, DirectRunner>();

/**
 * Lets the statements built here run directly on `db`'s connection inside its transactions. For SQLite
 * (see openSqlite): its one connection is the transaction's while the transaction runs, and a statement
 * runs to completion synchronously, so nothing can come between; Kysely's executor and connection
 * provider, made anew for each query of a transaction, were a quarter of the hot path's allocations.
 */
export function runDirectlyInTransactions(db: Db, runner: DirectRunner): void {
  directRunners.set(db.getExecutor().adapter, runner);
}

interface Template {
  sql: string;
  /** Per parameter of the compiled query: the name of the value that goes there, or a constant. */
  slots: ({ name: string } | { value: unknown })[];
}

/**
 * A query built and compiled once per dialect, run many times with fresh values: the hot path's few
 * statements run thousands of times a second, and building and compiling them each time cost more than
 * running them. `build` receives stand-ins for the values (use them as ordinary values); a run binds the
 * real ones in their places. The SQL text stays the same from run to run, so the database's prepared
 * statement is reused too: SQLite's through withStatementCache, PostgreSQL's by its name (statementName).
 */
export function prepared<Params extends Record<string, unknown>, Row>(
  build: (db: Db, values: Params) => Compilable<Row> | RawBuilder<Row>,
): (db: DbOrTx, values: Params) => Promise<Row[]> {
  const template = templates(build);
  return async (db, values) => (await run(db, template(db), values)).rows as Row[];
}

/**
 * `prepared` for an insert of one row that returns nothing, answering the new row's id (SQLite's rowid,
 * which an `integer primary key` is). SQLite only: PostgreSQL tells no id without `RETURNING`. On
 * SQLite a `RETURNING *` cost the hot path's insert about 5 µs of its 11 (bench/README.md), for values
 * the caller already holds.
 */
export function preparedInsert<Params extends Record<string, unknown>>(
  build: (db: Db, values: Params) => Compilable<unknown>,
): (db: DbOrTx, values: Params) => Promise<number> {
  const template = templates(build);
  return async (db, values) => {
    const { insertId } = await run(db, template(db), values);
    if (insertId === undefined) throw new Error('the storage told no id of the inserted row');
    return insertId;
  };
}

/** A query's compiled template per dialect, built on first use. */
function templates<Params extends Record<string, unknown>>(
  build: (db: Db, values: Params) => Compilable<unknown> | RawBuilder<unknown>,
): (db: DbOrTx) => Template {
  const compiledBy = new WeakMap<DialectAdapter, Template>();
  return (db) => {
    const adapter = db.getExecutor().adapter;
    let found = compiledBy.get(adapter);
    if (!found) {
      const stand = new Proxy({} as Params, { get: (_, name) => `${MARK}${String(name)}` });
      const query = build(db as Db, stand);
      const compiled = 'isRawBuilder' in query ? query.compile(db) : query.compile();
      found = {
        sql: compiled.sql,
        slots: compiled.parameters.map((value) =>
          typeof value === 'string' && value.startsWith(MARK) ? { name: value.slice(MARK.length) } : { value },
        ),
      };
      compiledBy.set(adapter, found);
      if (!statementNames.has(found.sql)) statementNames.set(found.sql, `parley_${statementNames.size + 1}`);
    }
    return found;
  };
}

async function run<Params extends Record<string, unknown>>(
  db: DbOrTx,
  { sql, slots }: Template,
  values: Params,
): Promise<{ rows: unknown[]; insertId: number | undefined }> {
  const parameters = slots.map((slot) => ('name' in slot ? values[slot.name] : slot.value));
  const direct = db.isTransaction ? directRunners.get(db.getExecutor().adapter) : undefined;
  if (direct) return direct(sql, parameters);
  const result = await db.executeQuery(CompiledQuery.raw(sql, parameters));
  return { rows: result.rows, insertId: result.insertId === undefined ? undefined : Number(result.insertId) };
}
