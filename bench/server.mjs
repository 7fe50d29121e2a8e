// Starts the built server (`npm run build` first) for a benchmark: a fresh SQLite DATA_DIR, a free port,
// the administrator's password `bench-pass-1`. Resolves on the line that names the real URL;
// `stop()` ends the server and removes its data. With DATABASE_URL set it runs on PostgreSQL, in a
// schema of its own that `stop()` drops. `startServer({ dataDir, env })` runs it on an existing DATA_DIR
// instead (kept on stop) and with further environment, e.g. DATABASE_URL of an existing database.
//
//   BENCH_SERVER_ARGS  Node flags for the server, after those `npm start` gives it (SERVER_NODE_FLAGS), so
//                      a later one overrides: "--max-semi-space-size=16", "--cpu-prof --cpu-prof-dir=/tmp/prof"
//   BENCH_SERVER_LOG   a file the server's standard output is copied to (e.g. with --trace-gc-nvp)
//   BENCH_ROOT         the checkout whose built server runs (another build beside this one, to compare)
//   BENCH_SERVER_CPUS  pins the server to CPUs of its own (e.g. 0, with the generator run under
//                      `taskset -c 1`), so that on a small machine the two do not preempt each other
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.env.BENCH_ROOT ?? fileURLToPath(new URL('..', import.meta.url));
export const ADMIN_PASSWORD = 'bench-pass-1';
/** The Node flags `npm start` runs the server with, read from its script so the bench cannot drift from it. */
const SERVER_NODE_FLAGS = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start.match(/--[\w-]+=\S+/g) ?? [];

/**
 * The load comes from one address (loopback), so the per-address limits that guard a real site against
 * one abusive client are lifted here. Per-token limits stay as they are, but for the visitor's message:
 * at 5,000 messages a second over 1,000 visitors each sends 5 a second, beyond the 30 in 10 s one person
 * typing is allowed.
 */
const ONE_ADDRESS_LOAD = {
  RATE_LIMITS: [
    ...['visitorInit', 'visitorVisit', 'visitorMessage', 'visitorMessages'].map((name) => `${name}.address=1000000/1`),
    'visitorMessage.token=1000000/1',
  ].join(','),
  MAX_CONNECTIONS_PER_ADDRESS: '1000000',
  MAX_VISITOR_SOCKETS_PER_ADDRESS: '1000000',
  MAX_AGENT_SOCKETS_PER_ADDRESS: '1000000',
};

/** Servers and workers still running: killed if the bench ends early (a crash), so that none outlives it. */
const running = new Set();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
const tracked = (child) => {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
};

export function startServer({ dataDir: existing, env = {} } = {}) {
  const dataDir = existing ?? mkdtempSync(join(tmpdir(), 'parley-bench-'));
  const nodeArgs = [...SERVER_NODE_FLAGS, ...(process.env.BENCH_SERVER_ARGS ? process.env.BENCH_SERVER_ARGS.split(' ') : [])];
  const cpus = process.env.BENCH_SERVER_CPUS;
  const schema = process.env.DATABASE_URL && !existing ? `bench_${randomBytes(6).toString('hex')}` : undefined;
  const [command, prefix] = cpus ? ['taskset', ['-c', cpus, process.execPath]] : [process.execPath, []];
  const child = tracked(
    spawn(command, [...prefix, ...nodeArgs, 'apps/server/dist/main.js'], {
      cwd: root,
      env: {
        ...process.env,
        ...ONE_ADDRESS_LOAD,
        ...(schema ? { DATABASE_SCHEMA: schema } : {}),
        DATA_DIR: dataDir,
        PORT: '0',
        ADMIN_PASSWORD,
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    if (!existing) rmSync(dataDir, { recursive: true, force: true });
    if (schema) {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  };
  if (process.env.BENCH_SERVER_LOG) child.stdout.pipe(createWriteStream(process.env.BENCH_SERVER_LOG));
  return new Promise((resolve) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      // Once it has said where it listens, the rest of its output is not kept (a trace may be long).
      if (text === undefined) return;
      text += chunk;
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(text);
      if (match) {
        text = undefined;
        resolve({ child, url: match[1], stop, dataDir, schema });
      }
    });
  });
}

/**
 * Starts a webhook worker process (`npm run webhooks:worker`) beside a server started with
 * `WEBHOOK_DELIVERY=worker` on PostgreSQL: the same database and schema, the same further environment.
 * Resolves on its ready line with `{ child, stop }`.
 */
export function startWebhookWorker(server, env = {}) {
  const child = tracked(
    spawn(process.execPath, [...SERVER_NODE_FLAGS, 'apps/server/dist/webhook-worker.js'], {
      cwd: root,
      env: {
        ...process.env,
        ...(server.schema ? { DATABASE_SCHEMA: server.schema } : {}),
        DATA_DIR: server.dataDir,
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  };
  return new Promise((resolve, reject) => {
    let text = '';
    child.once('exit', (code) => reject(new Error(`the webhook worker exited with ${code}`)));
    child.stdout.on('data', (chunk) => {
      if (text === undefined) return;
      text += chunk;
      if (text.includes('webhook worker delivering')) {
        text = undefined;
        resolve({ child, stop });
      }
    });
  });
}
