import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../src/lib/tokens.js';
import { APP_ROOT, backends } from './harness.js';
import { buildOnce, spawnServer } from './processes.js';

const dataDir = mkdtempSync(join(tmpdir(), 'parley-backup-'));
const outDir = mkdtempSync(join(tmpdir(), 'parley-backup-out-'));
const run = () => spawnServer('apps/server/dist/main.js', dataDir, 'unused', { ADMIN_PASSWORD: 'admin-pass-1' });

/** Runs `npm run backup` / `npm run restore`'s script as npm does, without blocking this process. */
function script(name: 'backup' | 'restore', ...args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [`scripts/${name}.mjs`, ...args], {
    cwd: APP_ROOT,
    env: { PATH: process.env.PATH, DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
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
