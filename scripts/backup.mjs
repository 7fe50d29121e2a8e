// `npm run backup -- <file> [--force]`: a consistent copy of the SQLite database, taken with SQLite's
// online backup while the server runs and writes (a plain file copy misses what is still in the
// write-ahead log). Refuses to overwrite an existing file unless --force.
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { checkParleyDatabase, databaseFile, sqliteDataDir } from './sqlite-data-dir.mjs';

const args = process.argv.slice(2);
const force = args.includes('--force');
const target = args.find((arg) => !arg.startsWith('--'));
if (!target) {
  process.stderr.write('usage: npm run backup -- <file> [--force]\n');
  process.exit(2);
}
const dataDir = sqliteDataDir('Back it up with pg_dump, e.g. pg_dump --format=custom --file=parley.dump "$DATABASE_URL".');
const source = databaseFile(dataDir);
const file = resolve(target);
if (!existsSync(source)) {
  process.stderr.write(`No database at ${source}: is DATA_DIR right?\n`);
  process.exit(1);
}
if (existsSync(file) && !force) {
  process.stderr.write(`${file} exists; pass --force to overwrite it.\n`);
  process.exit(1);
}

// Written beside the target and renamed at the end, so a failed backup never leaves a partial file.
const partial = `${file}.partial`;
rmSync(partial, { force: true });
const database = new Database(source, { fileMustExist: true, timeout: 5000 });
try {
  await database.backup(partial);
  // One self-contained file: no write-ahead log beside it.
  const copy = new Database(partial, { fileMustExist: true });
  copy.pragma('journal_mode = DELETE');
  copy.close();
} catch (error) {
  rmSync(partial, { force: true });
  process.stderr.write(`Backup failed: ${error.message}\n`);
  process.exit(1);
} finally {
  database.close();
}
const problems = checkParleyDatabase(partial);
if (problems.length > 0) {
  rmSync(partial, { force: true });
  process.stderr.write(`Backup failed: the copy is not sound: ${problems.join('; ')}\n`);
  process.exit(1);
}
renameSync(partial, file);
process.stdout.write(`Backed up ${source} to ${file} (${statSync(file).size} bytes, integrity ok).\n`);
