import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openStorage } from '../src/db/index.js';
import { APP_ROOT, backends } from './harness.js';
import { buildOnce, dropSchema, spawnServer } from './processes.js';

const dirs: string[] = [];
const schemas: string[] = [];

function place(): { dataDir: string; schema: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-demo-'));
  const schema = `s_${randomBytes(6).toString('hex')}`;
  dirs.push(dataDir);
  schemas.push(schema);
  return { dataDir, schema };
}

/** `npm run demo -- --scale 0.01` as a newcomer runs it (a few hundred visits); resolves with its output. */
function runDemo(dataDir: string, schema: string, env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['scripts/demo.mjs', '--scale', '0.01'], {
    cwd: APP_ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      ...(backends.postgres ? { DATABASE_URL: backends.postgres, DATABASE_SCHEMA: schema } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

async function signIn(url: string, username: string, password: string): Promise<{ status: number; token: string }> {
  const response = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const body = (await response.json()) as { data: { token: string } | null };
  return { status: response.status, token: body.data?.token ?? '' };
}

/**
 * Every message and visitor the demo wrote is in the search indexes, and those go on indexing what the
 * server writes next (on PostgreSQL the demo sets them aside while it writes, then builds them).
 */
async function expectSearchIndexed(dataDir: string, schema: string): Promise<void> {
  const config = loadConfig(
    { DATA_DIR: dataDir, ...(backends.postgres ? { DATABASE_URL: backends.postgres, DATABASE_SCHEMA: schema } : {}) },
    APP_ROOT,
  );
  const storage = await openStorage(config);
  try {
    const count = async (table: string) =>
      Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(storage.db)).rows[0]?.n);
    const top = async (table: string) =>
      Number((await sql<{ n: number }>`select max(id) as n from ${sql.table(table)}`.execute(storage.db)).rows[0]?.n);
    expect(await count('messages')).toBeGreaterThan(0);
    // The upload sweep of a server started on the demo goes on after its messages (none names an upload).
    const uploadMarks = await sql<{ n: number }>`select messages_up_to as n from upload_marks`.execute(storage.db);
    expect(Number(uploadMarks.rows[0]?.n)).toBe(await top('messages'));
    const marks = await sql<{ name: string; low: number; next: number }>`select name, low, next from search_backfill order by name`.execute(
      storage.db,
    );
    if (storage.dialect === 'postgres') {
      expect(await count('message_search')).toBe(await count('messages'));
      // Only the visitors with something to search: a name, phone, email, user id or attributes.
      const searchable = await sql<{ n: number }>`select count(*) as n from visitors where coalesce(name, '') <> ''
        or coalesce(phone, '') <> '' or coalesce(email, '') <> '' or coalesce(user_id, '') <> '' or attributes <> '{}'`.execute(storage.db);
      expect(Number(searchable.rows[0]?.n)).toBeGreaterThan(0);
      expect(await count('visitor_search')).toBe(Number(searchable.rows[0]?.n));
      expect(await count('visitor_search')).toBeLessThan(await count('visitors'));
      // The demo computes the messages' grams itself: the same sets as the database's own function.
      const differing = await sql<{ n: number }>`select count(*) as n from message_search s join messages m on m.id = s.id
        where not (s.grams @> parley_grams(m.msg) and s.grams <@ parley_grams(m.msg))`.execute(storage.db);
      expect(Number(differing.rows[0]?.n)).toBe(0);
      expect(marks.rows.map((row) => Number(row.low))).toEqual([0, 0]);
      // Left as autovacuum would leave it: every table the demo wrote vacuumed (its visibility map made) and analysed.
      const vacuumed = await sql<{ relname: string }>`select relname from pg_stat_user_tables
        where schemaname = ${schema} and last_vacuum is not null and last_analyze is not null`.execute(storage.db);
      expect(vacuumed.rows.map((row) => row.relname)).toEqual(
        expect.arrayContaining(['conversations', 'message_search', 'messages', 'visitor_search', 'visitors', 'visits']),
      );
      const indexes = await sql<{
        indexname: string;
      }>`select indexname from pg_indexes where schemaname = ${schema} and indexname like '%_grams'`.execute(storage.db);
      expect(indexes.rows.map((row) => row.indexname).sort()).toEqual(['message_search_grams', 'visitor_search_grams']);
      const triggers = await sql<{
        tgname: string;
        tgenabled: string;
      }>`select tgname, tgenabled from pg_trigger t join pg_class c on c.oid = t.tgrelid
        join pg_namespace n on n.oid = c.relnamespace where n.nspname = ${schema} and tgname like '%_search_sync' order by tgname`.execute(
        storage.db,
      );
      expect(triggers.rows).toEqual([
        { tgname: 'message_search_sync', tgenabled: 'O' },
        { tgname: 'visitor_search_sync', tgenabled: 'O' },
      ]);
    } else {
      const next = Object.fromEntries(marks.rows.map((row) => [row.name, Number(row.next)]));
      expect(next.message_search).toBeGreaterThan(await top('messages'));
      expect(next.visitor_search).toBeGreaterThan(await top('visitors'));
    }
  } finally {
    await storage.close();
  }
}

/** Then `npm start` on the same data, and the statistics as the administrator. */
async function startAndOpenStatistics(dataDir: string, schema: string, username: string, password: string): Promise<string> {
  const server = await spawnServer('scripts/start.mjs', dataDir, schema);
  try {
    const login = await signIn(server.url, username, password);
    expect(login.status).toBe(200);
    const overview = await fetch(`${server.url}/api/census/overview`, { headers: { authorization: `Bearer ${login.token}` } });
    expect(overview.status).toBe(200);
    return server.output();
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

beforeAll(buildOnce, 300_000);

afterAll(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const schema of schemas) await dropSchema(schema);
});

describe('npm run demo, then npm start', () => {
  it('prints the first administrator generated password once, as npm start does, and it signs in to the statistics', async () => {
    const { dataDir, schema } = place();
    const demo = await runDemo(dataDir, schema);
    expect(demo.code).toBe(0);
    expect(demo.output).toContain('First administrator created.');
    expect(demo.output).toContain('username: admin');
    await expectSearchIndexed(dataDir, schema);
    const printed = /password: (\S+)/.exec(demo.output)?.[1] ?? '';
    expect(printed.length).toBeGreaterThanOrEqual(12);
    // The administrator exists now: the server's first start has no password of its own to show.
    const started = await startAndOpenStatistics(dataDir, schema, 'admin', printed);
    expect(started).not.toMatch(/password:/);
  }, 300_000);

  it('honours ADMIN_USERNAME and ADMIN_PASSWORD and prints no password', async () => {
    const { dataDir, schema } = place();
    const password = 'demo-admin-pass-7319';
    const demo = await runDemo(dataDir, schema, { ADMIN_USERNAME: 'boss', ADMIN_PASSWORD: password });
    expect(demo.code).toBe(0);
    expect(demo.output).not.toMatch(/password: /);
    expect(demo.output).not.toContain(password);
    await startAndOpenStatistics(dataDir, schema, 'boss', password);
  }, 300_000);
});
