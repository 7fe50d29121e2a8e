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

/** Runs a statement on the connection a transaction holds, without the query builder's layers. */
export type DirectRunner = (sql: string, parameters: readonly unknown[]) => unknown[];

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
  const templates = new WeakMap<DialectAdapter, Template>();
  const template = (db: DbOrTx): Template => {
    const adapter = db.getExecutor().adapter;
    let found = templates.get(adapter);
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
      templates.set(adapter, found);
      if (!statementNames.has(found.sql)) statementNames.set(found.sql, `parley_${statementNames.size + 1}`);
    }
    return found;
  };
  return async (db, values) => {
    const { sql, slots } = template(db);
    const parameters = slots.map((slot) => ('name' in slot ? values[slot.name] : slot.value));
    const direct = db.isTransaction ? directRunners.get(db.getExecutor().adapter) : undefined;
    if (direct) return direct(sql, parameters) as Row[];
    const result = await db.executeQuery<Row>(CompiledQuery.raw(sql, parameters));
    return result.rows;
  };
}
