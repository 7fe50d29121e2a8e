// `npm run restore -- <file>`: puts a backup back as the SQLite database, while the server is stopped.
// The database it replaces is kept beside it as parley.db.before-restore-<time>.
import { existsSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
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
  process.stdout.write(`Restored ${file} into ${current}.${keptAs ? ` The previous database is kept as ${keptAs}.` : ''}\n`);
} catch (error) {
  // The previous database goes back where it was.
  if (keptAs && !existsSync(current)) renameSync(keptAs, current);
  process.stderr.write(`Restore failed: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  lock.release();
}
