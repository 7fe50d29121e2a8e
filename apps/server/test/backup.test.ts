import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../src/lib/tokens.js';
import { APP_ROOT, backends } from './harness.js';
import { buildOnce, spawnServer } from './processes.js';

const dataDir = mkdtempSync(join(tmpdir(), 'parley-backup-'));
const outDir = mkdtempSync(join(tmpdir(), 'parley-backup-out-'));
const run = () => spawnServer('apps/server/dist/main.js', dataDir, 'unused', { ADMIN_PASSWORD: 'admin-pass-1' });

interface ScriptRun {
  child: ChildProcess;
  /** The exit code (null when a signal ended it) and everything it printed. */
  done: Promise<{ code: number | null; output: string }>;
}

/** Starts `npm run backup` / `npm run restore`'s script as npm does, without blocking this process. */
function startScript(name: 'backup' | 'restore', args: string[], env: Record<string, string> = {}): ScriptRun {
  const child = spawn(process.execPath, [`scripts/${name}.mjs`, ...args], {
    cwd: APP_ROOT,
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return { child, done: new Promise((resolve) => child.once('exit', (code) => resolve({ code, output }))) };
}

function script(name: 'backup' | 'restore', ...args: string[]): Promise<{ code: number | null; output: string }> {
  return startScript(name, args).done;
}

async function initVisitor(url: string): Promise<string | null> {
  const response = await fetch(`${url}/api/visitor/init`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://shop.example/' }),
  });
  if (response.status !== 200) return null;
  return ((await response.json()) as { data: { YQToken: string } }).data.YQToken;
}

/** The visitors a database file holds, as the hashes of their credentials (all it keeps of them). */
function credentialHashesIn(file: string): Set<string> {
  const database = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return new Set(database.prepare('SELECT token_hash FROM visitors').pluck().all() as string[]);
  } finally {
    database.close();
  }
}

function hasVisitors(file: string): boolean {
  const database = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return database.prepare("SELECT 1 FROM sqlite_master WHERE name = 'visitors'").get() !== undefined;
  } finally {
    database.close();
  }
}

beforeAll(buildOnce, 180_000);

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(outDir, { recursive: true, force: true });
});

// On PostgreSQL the scripts only point at pg_dump.
describe.skipIf(backends.postgres)('npm run backup / npm run restore', () => {
  it('copies every committed row while the server writes, and restores it into a stopped DATA_DIR only', async () => {
    const server = await run();
    const acknowledged: string[] = [];
    let writing = true;
    const writers = Array.from({ length: 4 }, async () => {
      while (writing) {
        const token = await initVisitor(server.url);
        if (token) acknowledged.push(token);
      }
    });
    // A write load under way: a good number of rows, some still only in the write-ahead log.
    while (acknowledged.length < 150) await new Promise((resolve) => setTimeout(resolve, 20));

    const before = [...acknowledged];
    const plainCopy = join(outDir, 'plain-copy.db');
    copyFileSync(join(dataDir, 'parley.db'), plainCopy);
    const file = join(outDir, 'backup.db');
    const backup = await script('backup', file);
    const afterBackup = acknowledged.length;
    writing = false;
    await Promise.all(writers);
    expect(backup.code, backup.output).toBe(0);

    const copied = credentialHashesIn(file);
    // A plain copy may not even hold the tables yet: they may still be in the log the copy left behind.
    const plain = hasVisitors(plainCopy) ? credentialHashesIn(plainCopy) : new Set<string>();
    const held = before.filter((token) => copied.has(hashToken(token))).length;
    console.info(
      `backup while writing: ${held} of ${before.length} rows acknowledged before it (plain file copy: ${before.filter((token) => plain.has(hashToken(token))).length})`,
    );
    expect(held).toBe(before.length);
    const check = new Database(file, { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
    expect(afterBackup).toBeGreaterThan(0);

    // An existing file is not overwritten without --force.
    expect((await script('backup', file)).code).not.toBe(0);

    const refused = await script('restore', file);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain(`a Parley server is running on DATA_DIR ${dataDir}`);

    // Rows written after the backup exist before the restore, and not after it.
    const later = acknowledged.find((token) => !copied.has(hashToken(token)));
    expect(later).toBeTruthy();
    expect(await server.stop()).toBe(0);

    const notADatabase = join(outDir, 'not-a-database.db');
    copyFileSync(join(APP_ROOT, 'package.json'), notADatabase);
    expect((await script('restore', notADatabase)).code).not.toBe(0);

    const restored = await script('restore', file);
    expect(restored.code, restored.output).toBe(0);
    expect(readdirSync(dataDir).some((name) => name.startsWith('parley.db.before-restore-'))).toBe(true);
    expect(existsSync(join(dataDir, 'parley.db-wal'))).toBe(false);
    // The delivery log told how far the replaced database's events went: it is kept aside with it.
    expect(existsSync(join(dataDir, 'webhooks.db'))).toBe(false);
    expect(readdirSync(dataDir).some((name) => name.startsWith('webhooks.db.before-restore-'))).toBe(true);

    const again = await run();
    const say = (token: string | undefined) =>
      fetch(`${again.url}/api/visitor/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ YQToken: token, msg: 'after the restore', onlyID: `r-${token?.slice(0, 8)}` }),
      });
    expect((await say(before[0])).status).toBe(200);
    expect((await say(later)).status).not.toBe(200);
    expect(await again.stop()).toBe(0);
  }, 180_000);
});

/** Polls `condition` until it holds, or fails after `ms`. */
async function until(condition: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const VISITOR_ROW = `INSERT INTO visitors (token_hash, public_id, channel, state, user_agent, referrer, created_at, last_seen_at)
  VALUES (@key, @key, 'web', 'end', @agent, @referrer, @at, @at)`;

/**
 * A DATA_DIR with the server's tables (migrated by the server itself) and some 60 MB of visitors: big
 * enough that copying it takes many steps, so a writer commits while a backup runs.
 */
async function loadedDataDir(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'parley-backup-load-'));
  const server = await spawnServer('apps/server/dist/main.js', dir, 'unused', { ADMIN_PASSWORD: 'admin-pass-1' });
  expect(await server.stop()).toBe(0);
  const database = new Database(join(dir, 'parley.db'));
  const insert = database.prepare(VISITOR_ROW);
  const at = new Date().toISOString();
  database.transaction(() => {
    for (let index = 0; index < 40_000; index += 1) {
      insert.run({
        key: `ballast-${index}`,
        agent: `agent ${index} `.repeat(40),
        referrer: `https://ref.example/${index}/`.repeat(40),
        at,
      });
    }
  })();
  database.close();
  return dir;
}

/**
 * Another connection committing a visitor every 2 ms until stopped: a steady write load. It writes from a
 * thread of its own, so that nothing this test does on its event loop leaves a pause in the load.
 */
function steadyWriter(file: string) {
  // Shared counters: [stop, writes, last id committed].
  const shared = new Int32Array(new SharedArrayBuffer(12));
  const worker = new Worker(
    `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const database = new Database(workerData.file);
database.pragma('busy_timeout = 5000');
const insert = database.prepare(workerData.sql);
const shared = workerData.shared;
const pause = new Int32Array(new SharedArrayBuffer(4));
while (Atomics.load(shared, 0) === 0) {
  const at = new Date().toISOString();
  const writes = Atomics.load(shared, 1);
  const id = Number(insert.run({ key: 'steady-' + writes, agent: 'steady writer', referrer: '', at }).lastInsertRowid);
  Atomics.store(shared, 2, id);
  Atomics.store(shared, 1, writes + 1);
  Atomics.wait(pause, 0, 0, 2);
}
database.close();
`,
    { eval: true, workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file, sql: VISITOR_ROW, shared } },
  );
  const ended = new Promise((resolve) => worker.once('exit', resolve));
  return {
    lastId: () => Atomics.load(shared, 2),
    writes: () => Atomics.load(shared, 1),
    async stop() {
      Atomics.store(shared, 0, 1);
      await ended;
    },
  };
}

describe.skipIf(backends.postgres)('npm run backup under a steady write load', () => {
  let loaded = '';
  beforeAll(async () => {
    loaded = await loadedDataDir();
  }, 180_000);
  afterAll(() => {
    if (loaded) rmSync(loaded, { recursive: true, force: true });
  });

  it('finishes while another connection commits every 2 ms, and the copy holds every row committed before it started', async () => {
    const writer = steadyWriter(join(loaded, 'parley.db'));
    try {
      await until(() => writer.writes() >= 20);
      const committedBefore = writer.lastId();
      const writesBefore = writer.writes();
      const file = join(outDir, 'under-load.db');
      const run = startScript('backup', [file], { DATA_DIR: loaded });
      // SQLite's online backup starts over at each commit of another connection: under this load it never
      // ends. Waited for a generous while, then ended, so that a backup that does not finish fails here.
      const outcome = await Promise.race([run.done, new Promise<null>((resolve) => setTimeout(() => resolve(null), 60_000))]);
      if (outcome === null) run.child.kill('SIGKILL');
      const writesDuring = writer.writes() - writesBefore;
      expect(outcome, 'the backup had not finished after 60 s of steady writes').not.toBeNull();
      expect(outcome?.code, outcome?.output).toBe(0);
      expect(writesDuring).toBeGreaterThan(0);

      const copy = new Database(file, { readonly: true, fileMustExist: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        // One self-contained file: nothing of it is left in a write-ahead log.
        expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
        const held = copy.prepare('SELECT count(*) FROM visitors WHERE id <= ?').pluck().get(committedBefore);
        expect(held).toBe(committedBefore);
      } finally {
        copy.close();
      }
      expect(readdirSync(outDir).filter((name) => name.startsWith('under-load.db'))).toEqual(['under-load.db']);
    } finally {
      await writer.stop();
    }
  }, 120_000);

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'on %s mid-backup removes the partial file and exits non-zero',
    async (signal) => {
      const name = `interrupted-${signal}.db`;
      const run = startScript('backup', [join(outDir, name)], { DATA_DIR: loaded, BACKUP_TEST_PAUSE_MS: '60000' });
      const leftovers = () => readdirSync(outDir).filter((entry) => entry.startsWith(name));
      // The partial file is there: the backup is under way.
      await until(() => leftovers().length > 0);
      run.child.kill(signal);
      const { code, output } = await run.done;
      expect(code, output).not.toBe(0);
      expect(code, output).not.toBeNull();
      expect(leftovers()).toEqual([]);
    },
    120_000,
  );
});
