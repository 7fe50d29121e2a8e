// `npm run restore -- <file>`: puts a backup back as the SQLite database, while the server is stopped.
// The database it replaces is kept beside it as parley.db.before-restore-<time>, and so is the webhook
// delivery log (webhooks.db): it tells how far the replaced database's queued events were delivered, which
// says nothing of the restored one's. The next start makes a new log; events the backup still held queued
// may then go out again (receivers tell them by the event's id).
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { checkParleyDatabase, databaseFile, lockDataDir, sqliteDataDir } from './sqlite-data-dir.mjs';

const target = process.argv.slice(2).find((arg) => !arg.startsWith('--'));
if (!target) {
  process.stderr.write('usage: npm run restore -- <file>\n');
  process.exit(2);
}
const dataDir = sqliteDataDir('Restore it with pg_restore (or psql for a plain dump) while the server is stopped.');
const file = resolve(target);
const problems = checkParleyDatabase(file);
if (problems.length > 0) {
  process.stderr.write(`Not restored: ${file}: ${problems.join('; ')}\n`);
  process.exit(1);
}

// Held until the end, so a server cannot start on a half-restored DATA_DIR.
const lock = lockDataDir(dataDir);
if (!lock) {
  process.stderr.write(`Not restored: a Parley server is running on DATA_DIR ${dataDir}. Stop it first, then restore.\n`);
  process.exit(1);
}
const current = databaseFile(dataDir);
let keptAs = null;
try {
  if (existsSync(current)) {
    // Folds its write-ahead log in first, so the file kept aside is complete on its own.
    const previous = new Database(current, { fileMustExist: true, timeout: 5000 });
    previous.pragma('wal_checkpoint(TRUNCATE)');
    previous.close();
    keptAs = `${current}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    renameSync(current, keptAs);
  }
  for (const stale of [`${current}-wal`, `${current}-shm`]) rmSync(stale, { force: true });
  const partial = `${current}.partial`;
  rmSync(partial, { force: true });
  const backup = new Database(file, { readonly: true, fileMustExist: true });
  try {
    await backup.backup(partial);
  } finally {
    backup.close();
  }
  renameSync(partial, current);
  const log = join(dataDir, 'webhooks.db');
  if (existsSync(log)) {
    const logKept = `${log}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const previousLog = new Database(log, { fileMustExist: true, timeout: 5000 });
    previousLog.pragma('wal_checkpoint(TRUNCATE)');
    previousLog.close();
    renameSync(log, logKept);
    for (const stale of [`${log}-wal`, `${log}-shm`]) rmSync(stale, { force: true });
  }
  process.stdout.write(`Restored ${file} into ${current}.${keptAs ? ` The previous database is kept as ${keptAs}.` : ''}\n`);
} catch (error) {
  // The previous database goes back where it was.
  if (keptAs && !existsSync(current)) renameSync(keptAs, current);
  process.stderr.write(`Restore failed: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  lock.release();
}
