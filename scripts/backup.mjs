// `npm run backup -- <file> [--force]`: a consistent copy of the SQLite database, taken while the server
// runs and writes (a plain file copy misses what is still in the write-ahead log). The copy is SQLite's
// VACUUM INTO, one read transaction that writers never restart, made by a child process
// (backup-snapshot.mjs) into a file beside the target, checked, synced, then renamed into place. SIGTERM
// or SIGINT ends it at once: the partial file is removed and the exit code is not 0. Refuses to overwrite
// an existing file unless --force.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseFile, sqliteDataDir } from './sqlite-data-dir.mjs';

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

// Written beside the target and renamed at the end, so a failed or interrupted backup never leaves a
// partial file under the target's name; one left by a run that was killed outright (SIGKILL) goes here.
const partial = `${file}.partial`;
const removePartial = () => {
  for (const leftover of [partial, `${partial}-journal`]) rmSync(leftover, { force: true });
};
removePartial();

// Handled from before the child starts; a handler runs on a later turn, once `snapshot` is set.
let interrupted = null;
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    interrupted ??= signal;
    snapshot.kill('SIGKILL');
  });
}
const snapshot = spawn(process.execPath, [fileURLToPath(new URL('./backup-snapshot.mjs', import.meta.url)), source, partial], {
  stdio: ['ignore', 'inherit', 'pipe'],
});
let reason = '';
snapshot.stderr.on('data', (chunk) => {
  reason += chunk;
});
const finished = new Promise((done) => snapshot.once('close', (code, signal) => done({ code, signal })));

const { code } = await finished;
if (interrupted || code !== 0) {
  removePartial();
  process.stderr.write(interrupted ? `Backup interrupted (${interrupted}); nothing was written.\n` : `Backup failed: ${reason.trim()}\n`);
  // 128 + the signal's number, as a shell reports a process its signal ended.
  process.exit(interrupted === 'SIGINT' ? 130 : interrupted === 'SIGTERM' ? 143 : 1);
}
renameSync(partial, file);
// The rename itself is on disk once the directory is synced.
const directory = openSync(dirname(file), 'r');
try {
  fsyncSync(directory);
} finally {
  closeSync(directory);
}
process.stdout.write(`Backed up ${source} to ${file} (${statSync(file).size} bytes, integrity ok).\n`);
