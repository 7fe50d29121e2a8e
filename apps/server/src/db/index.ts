import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, type LogEvent, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { startCheckpointer } from './checkpointer.js';
import type { DialectName } from './dialect.js';
import type { Db } from './handles.js';
import { migrations } from './migrations/index.js';
import { type DirectRunner, runDirectlyInTransactions, statementName } from './prepared.js';
import type { Database } from './schema.js';
import { registerGrams } from './search.js';

export type { Db, DbOrTx } from './handles.js';

export interface Storage {
  db: Db;
  dialect: DialectName;
  /** The PostgreSQL schema worked in, when not the default one. */
  schema?: string | undefined;
  /**
   * Hears the errors of connections that no query was waiting on (the database ended them, or went
   * away). They are expected during an outage; the pool replaces the connections once it is back.
   */
  onConnectionError?: (error: Error) => void;
  close(): Promise<void>;
}

/** How long a query waits for a connection before failing (as "database unavailable") instead of hanging. */
export const CONNECT_TIMEOUT_MS = 5000;

// PostgreSQL answers COUNT(*) and other int8 values as strings; every such value fits a JS number here.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

/** Hears every statement the storage runs, BEGIN and COMMIT included (tests count the hot path's statements). */
export type StatementListener = (sql: string) => void;

export async function openStorage(config: Config, onStatement?: StatementListener): Promise<Storage> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl, config.databaseSchema, onStatement);
  return openSqlite(config.dataDir, config.sqliteSynchronous, config.sqliteCheckpoint, onStatement);
}

/** Kysely's log hook sees each statement as it runs, the transaction control ones as well. */
function logOption(onStatement: StatementListener | undefined) {
  return onStatement ? { log: (event: LogEvent) => onStatement(event.query.sql) } : {};
}

function openSqlite(
  dataDir: string,
  synchronous: Config['sqliteSynchronous'],
  checkpoint: Config['sqliteCheckpoint'],
  onStatement: StatementListener | undefined,
): Storage {
  mkdirSync(dataDir, { recursive: true });
  const database = new SqliteDatabase(join(dataDir, 'parley.db'));
  database.pragma('journal_mode = WAL');
  // NORMAL in WAL mode keeps every committed transaction across a process crash, not always across a
  // power loss; FULL syncs the log at each commit so that it survives that too, at the cost of an fsync.
  database.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  // The search indexes' triggers (migration 037) call it on every write of a message or a visitor.
  registerGrams(database);
  const statements = withStatementCache(database);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }), ...logOption(onStatement) });
  runDirectlyInTransactions(db, directRunner(statements, onStatement));
  const storage: Storage = {
    db,
    dialect: 'sqlite',
    onConnectionError: (error) => process.stderr.write(`database error: ${error.message}\n`),
    close: async () => {
      await checkpointer.stop();
      await db.destroy();
    },
  };
  const checkpointer = startCheckpointer(join(dataDir, 'parley.db'), {
    ...checkpoint,
    onFailure: (error) => storage.onConnectionError?.(error),
    autoCheckpoint: (on) => database.pragma(`wal_autocheckpoint = ${on ? 1000 : 0}`),
    catchUp: () => catchUp(database, (error) => storage.onConnectionError?.(error)),
  });
  return storage;
}

/**
 * Copies the log's last frames into the database file on the writer's own connection, between two of its
 * transactions (a checkpoint inside one could not reach the frames it wrote): then nothing is left to copy
 * when its next write begins, and that write starts the log over. A few frames, the ones written since
 * the checkpoint thread's pass, and never blocked by nor blocking another connection (PASSIVE).
 */
function catchUp(database: SqliteDatabase.Database, onFailure: (error: Error) => void, attempts = 100): void {
  if (!database.open) return;
  if (database.inTransaction) {
    // A batch is being committed: try again once it is (each turn of the event loop, a bounded number of times).
    if (attempts > 1) setImmediate(() => catchUp(database, onFailure, attempts - 1));
    return;
  }
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    onFailure(error instanceof Error ? error : new Error(String(error)));
  }
}

/** How `prepared` statements run on a SQLite connection inside its transactions (see runDirectlyInTransactions). */
export function directRunner(statements: ReturnType<typeof withStatementCache>, onStatement?: StatementListener): DirectRunner {
  return (sql, parameters) => {
    onStatement?.(sql);
    const statement = statements.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters), insertId: undefined };
    return { rows: [], insertId: Number(statement.run(parameters).lastInsertRowid) };
  };
}

/**
 * Kysely prepares every query anew; the same few hundred SQL texts run all day, so their prepared
 * statements are kept. better-sqlite3 runs a statement to completion synchronously, so one statement
 * object is never used by two queries at once.
 */
export function withStatementCache(database: SqliteDatabase.Database): { close(): void; prepare(sql: string): SqliteDatabase.Statement } {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (!statement) {
        statement = database.prepare(sql);
        if (cache.size >= 500) cache.clear();
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * A connection that only reads SQLite's database, for a thread of the server's own working beside its
 * writer (WAL: readers and the writer never wait for each other). It can write nothing, by construction.
 */
export function openSqliteReader(dataDir: string): Storage {
  const database = new SqliteDatabase(join(dataDir, 'parley.db'), { readonly: true, fileMustExist: true });
  database.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

export async function openPostgres(
  connectionString: string,
  schema: string | undefined,
  onStatement: StatementListener | undefined,
): Promise<Storage> {
  if (schema) {
    const admin = new pg.Client({ connectionString });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // A database that vanished without closing its connections (host down, network cut) is noticed
    // by TCP keepalive rather than after the kernel's two hours.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    options: schema ? `-c search_path="${schema}"` : undefined,
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), ...logOption(onStatement) });
  const storage: Storage = {
    db,
    dialect: 'postgres',
    schema,
    onConnectionError: (error) => process.stderr.write(`database connection error: ${error.message}\n`),
    close: () => db.destroy(),
  };
  // Without a listener, an 'error' event (PostgreSQL ending a connection: pg_terminate_backend, a restart,
  // a reset) is thrown and ends the process. The pool reports idle connections; a connection lent out to a
  // query reports on itself, and the query it serves fails on its own, so it is only logged here.
  pool.on('error', (error) => storage.onConnectionError?.(error));
  pool.on('connect', (client) => {
    client.on('error', (error) => storage.onConnectionError?.(error));
    namePreparedStatements(client);
  });
  return storage;
}

/**
 * The hot path's queries (db/prepared.ts) run as named prepared statements: PostgreSQL parses each once
 * per connection instead of at every run, which was most of their time, and after five runs settles on a
 * plan it keeps (the visitor messages' batch statement reads its arrays through a function for that: see
 * migration 045; a generic plan is not forced on the connection, which would give one to every other query
 * too). Kysely hands the client a text and values; the client is told the name for those texts that have one.
 */
function namePreparedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (text: unknown, values?: unknown, ...rest: unknown[]) => {
    const name = typeof text === 'string' && Array.isArray(values) ? statementName(text) : undefined;
    return name ? query({ name, text, values }, ...rest) : query(text, values, ...rest);
  };
}

export class MigrationError extends Error {}

/** PostgreSQL's codes for an object dropped by another session while it was being looked at: undefined_table, invalid_schema_name. */
const GONE_MEANWHILE = new Set(['42P01', '3F000']);

export async function migrate(storage: Storage): Promise<void> {
  const migrator = new Migrator({
    db: storage.db,
    provider: { getMigrations: async () => migrations(storage.dialect) },
    // Kysely looks for its bookkeeping tables across all schemas unless told which one is ours.
    ...(storage.schema ? { migrationTableSchema: storage.schema } : {}),
  });
  for (let attempt = 1; ; attempt += 1) {
    const { error, results } = await migrator.migrateToLatest();
    const failed = results?.find((result) => result.status === 'Error');
    if (!error && !failed) return;
    // Before any migration runs, Kysely lists the tables of every schema to find its own; a table or a
    // schema that another drops meanwhile (another deployment or test on the same database) fails that
    // list with "relation does not exist" or "schema does not exist". Nothing was changed by then, so the
    // look is taken again.
    const code = (error as { code?: unknown } | undefined)?.code;
    if (!failed && attempt < 5 && typeof code === 'string' && GONE_MEANWHILE.has(code)) continue;
    throw new MigrationError(`migration ${failed?.migrationName ?? ''} failed`, { cause: error });
  }
}
