// What `npm run backup` and `npm run restore` share: where the database is, and the DATA_DIR lock the
// server holds while it runs (apps/server/src/db/lock.ts takes the very same lock).
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';

/** DATA_DIR as the server reads it, or exits with how to do the same on PostgreSQL. */
export function sqliteDataDir(postgresAdvice) {
  if (process.env.DATABASE_URL) {
    process.stderr.write(`DATABASE_URL is set: this deployment runs on PostgreSQL. ${postgresAdvice}\n`);
    process.exit(1);
  }
  return resolve(process.env.DATA_DIR || './data');
}

export const databaseFile = (dataDir) => join(dataDir, 'parley.db');

/** Takes the DATA_DIR lock, or returns null while a server (or another restore) holds it. */
export function lockDataDir(dataDir) {
  mkdirSync(dataDir, { recursive: true });
  const lock = new Database(join(dataDir, 'parley.lock'), { timeout: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if (String(error?.code).startsWith('SQLITE_BUSY')) return null;
    throw error;
  }
  return { release: () => lock.close() };
}

/** The problems of a file that should be a Parley database; none when it is one. */
export function checkParleyDatabase(file) {
  let database;
  try {
    database = new Database(file, { readonly: true, fileMustExist: true });
    const integrity = database.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') return [`integrity check failed: ${integrity}`];
    const tables = new Set(database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all());
    const missing = ['kysely_migration', 'agents', 'visitors', 'messages'].filter((name) => !tables.has(name));
    return missing.length > 0 ? [`not a Parley database (no table ${missing.join(', ')})`] : [];
  } catch (error) {
    return [`not a readable SQLite database (${error.message})`];
  } finally {
    database?.close();
  }
}
