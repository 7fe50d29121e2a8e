import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';

/** The file locked in DATA_DIR; `npm run restore` takes the same lock. */
export const LOCK_FILE = 'parley.lock';

export class DataDirBusyError extends Error {}

export interface DataDirLock {
  release(): void;
}

/**
 * Makes this process the only server on a SQLite DATA_DIR: a second one would route visitors, count
 * sequences and hold presence of its own on the same database. The lock is SQLite's own file lock,
 * held by an exclusive transaction that stays open; the operating system drops it when the process
 * dies in any way, kill -9 included. It leaves parley.db alone, so `npm run backup` still reads it.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const database = new SqliteDatabase(join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    database.pragma('locking_mode = EXCLUSIVE');
    database.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    database.close();
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      throw new DataDirBusyError(
        `Another Parley process is using DATA_DIR ${dataDir}. Stop it first, or give this process a DATA_DIR of its own; ` +
          'to run several processes on one database, use PostgreSQL (DATABASE_URL) and Redis (REDIS_URL).',
      );
    }
    throw error;
  }
  return {
    release() {
      database.close();
    },
  };
}
