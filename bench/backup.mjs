// `npm run backup` while visitors write: starts the built server on a DATA_DIR (the busy year of
// `npm run demo -- --scale 100`), has 20 visitors send R messages a second in all over HTTP (`POST
// /api/visitor/message`, each answered once stored), and after 3 s of that runs the backup script into a
// scratch file, timing it until it exits; one still running after --cap seconds is ended (SIGTERM).
// Prints the backup's time, its exit, the copy's size, and the messages stored while it ran.
//
//   node bench/backup.mjs --data-dir /tmp/busy [--rate 100] [--cap 300] [--script scripts/backup.mjs]
//
// The server writes into that DATA_DIR: run it on a copy of the demo's. `--script` names another backup
// script (an older one, to compare); it is run as `node <script> <file> --force` with DATA_DIR set.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { option } from './client.mjs';
import { startServer } from './server.mjs';

const dataDir = option('data-dir');
const rate = Number(option('rate', '100'));
const capSeconds = Number(option('cap', '300'));
const script = resolve(option('script', fileURLToPath(new URL('../scripts/backup.mjs', import.meta.url))));
const VISITORS = 20;
const WARMUP_MS = 3000;
if (!dataDir) {
  process.stderr.write('name the database: --data-dir <SQLite DATA_DIR> (a copy: the server writes into it)\n');
  process.exit(2);
}

async function api(url, path, body) {
  const response = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (json.code !== 200) throw new Error(`${path}: ${json.msg}`);
  return json.data;
}

const server = await startServer({ dataDir });
const scratch = mkdtempSync(join(tmpdir(), 'parley-backup-bench-'));
try {
  const visitors = [];
  for (let index = 0; index < VISITORS; index += 1) {
    visitors.push((await api(server.url, '/api/visitor/init', { url: `https://shop.example/p/${index}` })).YQToken);
  }

  // R a second, sent on a 10 ms clock whatever the earlier sends are doing, each visitor in turn.
  let stored = 0;
  let refused = 0;
  let sent = 0;
  const pending = new Set();
  const perTick = rate / 100;
  let owed = 0;
  const sender = setInterval(() => {
    owed += perTick;
    for (; owed >= 1; owed -= 1) {
      const token = visitors[sent % VISITORS];
      sent += 1;
      const request = api(server.url, '/api/visitor/message', { YQToken: token, msg: `message ${sent}`, onlyID: `bench-${sent}` })
        .then(() => {
          stored += 1;
        })
        .catch(() => {
          refused += 1;
        })
        .finally(() => pending.delete(request));
      pending.add(request);
    }
  }, 10);

  await new Promise((done) => setTimeout(done, WARMUP_MS));
  const file = join(scratch, 'parley-backup.db');
  const storedBefore = stored;
  const started = performance.now();
  const backup = spawn(process.execPath, [script, file, '--force'], {
    env: { PATH: process.env.PATH, DATA_DIR: resolve(dataDir) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  backup.stdout.on('data', (chunk) => {
    output += chunk;
  });
  backup.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const cap = setTimeout(() => backup.kill('SIGTERM'), capSeconds * 1000);
  const [code, signal] = await new Promise((done) => backup.once('exit', (...exit) => done(exit)));
  clearTimeout(cap);
  const seconds = (performance.now() - started) / 1000;
  const storedDuring = stored - storedBefore;
  clearInterval(sender);
  await Promise.all(pending);

  const finished = code === 0 && existsSync(file);
  process.stdout.write(`${script}\n`);
  process.stdout.write(
    finished
      ? `backed up in ${seconds.toFixed(1)} s, ${(statSync(file).size / 1024 / 1024).toFixed(0)} MiB\n`
      : `not finished after ${seconds.toFixed(1)} s (exit ${code ?? signal}): ${output.trim()}\n`,
  );
  process.stdout.write(
    `visitor messages stored while it ran: ${storedDuring} (${(storedDuring / seconds).toFixed(0)}/s); refused over the whole run: ${refused}\n`,
  );
  // What an interrupted script left beside the target.
  const left = readdirSync(scratch).filter((name) => name !== 'parley-backup.db');
  if (left.length > 0) process.stdout.write(`left beside the target: ${left.join(', ')}\n`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
  await server.stop();
}
