// The copying half of `npm run backup`, run by it as a process of its own: `node scripts/backup-snapshot.mjs
// <database> <copy>`. SQLite runs the copy synchronously, so a signal could not be handled until it ended;
// in a child, `backup.mjs` stays free to end it at once on SIGTERM or SIGINT and remove the partial file.
// Writes <copy> (which must not exist) as one checked, self-contained SQLite file synced to disk; exits 0,
// or 1 with the reason on standard error.
//
// BACKUP_TEST_PAUSE_MS (for tests only): waits this long once the copy is written, before it is checked,
// so that a test can interrupt a backup at a known point.
import { closeSync, fsyncSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { checkParleyDatabase } from './sqlite-data-dir.mjs';

const [source, copy] = process.argv.slice(2);
if (!source || !copy) {
  process.stderr.write('usage: node scripts/backup-snapshot.mjs <database> <copy>\n');
  process.exit(2);
}

try {
  const database = new Database(source, { readonly: true, fileMustExist: true, timeout: 5000 });
  try {
    // One read transaction from start to end: the copy is the database as of its first read, and writers
    // never restart it (SQLite's online backup starts over whenever another connection commits).
    database.prepare('VACUUM INTO ?').run(copy);
  } finally {
    database.close();
  }
  const pause = Number(process.env.BACKUP_TEST_PAUSE_MS ?? 0);
  if (pause > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause);
  const problems = checkParleyDatabase(copy);
  if (problems.length > 0) {
    process.stderr.write(`the copy is not sound: ${problems.join('; ')}\n`);
    process.exit(1);
  }
  // VACUUM INTO does not sync what it writes: on disk before it takes the target's name.
  const fd = openSync(copy, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
