import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { type Db, directRunner, withStatementCache } from '../../db/index.js';
import { runDirectlyInTransactions } from '../../db/prepared.js';

/**
 * Where webhook deliveries are recorded (`webhook_deliveries`, the log the console shows and the worker
 * drains). On PostgreSQL it is the database itself: rows lock one by one, so the worker's writes and the
 * chat's go on side by side. On SQLite it is a file of its own beside the database, `webhooks.db`: SQLite
 * has one writer at a time, and the delivery process's batches of outcomes (a few thousand rows a second
 * at a busy site) in `parley.db` would make every message wait for the lock meanwhile. What a change
 * queues for webhooks stays in `parley.db`, written in the change's transaction (`webhook_events`), and
 * `message.created` is read from the messages themselves; the worker reads both from there and keeps how
 * far it has read each (`webhook_progress`) in this file, in the transaction that writes the deliveries it
 * made of them, so an event becomes deliveries exactly once (WebhookRepository.takeTold).
 */
export interface WebhookLog {
  /** The log's database. On SQLite it holds only `webhook_deliveries` and `webhook_progress`. */
  db: Db;
  /** True when the log is a database of its own (SQLite), apart from the events it is made of. */
  apart: boolean;
  close(): Promise<void>;
}

/** The file beside `parley.db` that holds SQLite's delivery log. */
export const LOG_FILE = 'webhooks.db';

/** The log on PostgreSQL: the database itself. */
export function sharedLog(db: Db): WebhookLog {
  return { db, apart: false, close: async () => {} };
}

/** Opens (and on first use creates) SQLite's delivery log in `dataDir`. */
export async function openSqliteLog(dataDir: string, synchronous: 'normal' | 'full' = 'normal'): Promise<WebhookLog> {
  const database = new SqliteDatabase(join(dataDir, LOG_FILE));
  database.pragma('journal_mode = WAL');
  database.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  database.pragma('busy_timeout = 5000');
  // A checkpoint runs inside the commit that passes this many pages of write-ahead log, with its syncs:
  // at SQLite's 1,000 it came every few commits of a busy site's deliveries and doubled what a commit cost
  // (4.3 -> 2.2 ms at 1,000 messages a second with 3 webhooks). Each row is written twice (made, then
  // answered), so a longer log also copies each page back once for both.
  database.pragma('wal_autocheckpoint = 8000');
  // The worker runs the same few statements thousands of times a second: each is prepared once, and in a
  // transaction run straight on the connection (see prepared).
  const statements = withStatementCache(database);
  const db: Db = new Kysely({ dialect: new SqliteDialect({ database: statements }) });
  runDirectlyInTransactions(db, directRunner(statements));
  await createLog(db);
  return { db, apart: true, close: () => db.destroy() };
}

/** The log's tables, as migrations 029, 036 and 038 shape them in the database (`if not exists`: run at each opening). */
async function createLog(db: Db): Promise<void> {
  await db.schema
    .createTable('webhook_deliveries')
    .ifNotExists()
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('uuid', 'varchar(36)', (c) => c.notNull().unique())
    .addColumn('webhook_id', 'integer', (c) => c.notNull())
    .addColumn('event_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('event', 'varchar(64)', (c) => c.notNull())
    .addColumn('order_key', 'varchar(64)')
    .addColumn('source', 'varchar(96)')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('response_code', 'integer')
    .addColumn('error', 'varchar(64)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('last_attempt_at', 'varchar(32)')
    .addColumn('next_at', 'varchar(32)')
    .addColumn('claimed_until', 'varchar(32)')
    .execute();
  const index = (name: string, columns: string[], unique = false) => {
    const builder = db.schema.createIndex(name).ifNotExists().on('webhook_deliveries').columns(columns);
    return (unique ? builder.unique() : builder).execute();
  };
  await index('webhook_deliveries_due', ['status', 'id']);
  await index('webhook_deliveries_of', ['webhook_id', 'id']);
  // As migration 038 has it: the order check's index covers only pending deliveries. Written here, not
  // taken from the migration: a migration is the database's history, this the log's shape today.
  await sql`drop index if exists webhook_deliveries_order`.execute(db);
  await sql`create index if not exists webhook_deliveries_pending_order
    on webhook_deliveries (webhook_id, order_key, id) where status = 'pending'`.execute(db);
  await index('webhook_deliveries_source', ['webhook_id', 'source'], true);
  await db.schema
    .createTable('webhook_progress')
    .ifNotExists()
    .addColumn('name', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('value', 'integer', (c) => c.notNull())
    .execute();
}

/** Rows moved a statement at a time when an older database's log is brought over. */
const MOVE_CHUNK = 500;

/**
 * Brings the deliveries an earlier version kept in `parley.db` into the log of its own, once (at the first
 * start with a log apart, before anything is delivered): pending ones would otherwise never go out, and the
 * console would lose their history. They keep their ids, so their order holds.
 */
export async function moveEarlierDeliveries(main: Db, log: WebhookLog): Promise<number> {
  if (!log.apart) return 0;
  const done = await log.db.selectFrom('webhook_progress').select('value').where('name', '=', 'moved').executeTakeFirst();
  if (done) return 0;
  let moved = 0;
  let after = 0;
  for (;;) {
    const rows = await main.selectFrom('webhook_deliveries').selectAll().where('id', '>', after).orderBy('id').limit(MOVE_CHUNK).execute();
    const last = rows.at(-1);
    if (!last) break;
    await log.db
      .insertInto('webhook_deliveries')
      .values(rows)
      .onConflict((oc) => oc.doNothing())
      .execute();
    after = last.id;
    moved += rows.length;
  }
  await log.db.insertInto('webhook_progress').values({ name: 'moved', value: moved }).execute();
  if (moved > 0) await sql`delete from webhook_deliveries`.execute(main);
  return moved;
}
