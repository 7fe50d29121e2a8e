// Keyword search on a busy site's history (issue: ten million messages): starts the built server on a
// database filled by `npm run demo -- --scale n`, waits until the search indexes hold every row written
// before them (the backfill; a build without them has nothing to wait for), then searches the history
// (`/api/history/getList`) and the visitors (`/api/user/getList`) for words of every kind, first page of 20
// with its total (`>1000`: more than that, the history's count stops there), one request at a time, several
// rounds; prints p50 / p95 per kind of keyword.
//
//   node bench/search.mjs --data-dir /tmp/demo [--rounds 5] [--json]                 SQLite
//   node bench/search.mjs --database-url postgres://root@127.0.0.1:5432/parley_bench  PostgreSQL
//   BENCH_ROOT=/path/to/other/checkout node bench/search.mjs …                        another build
//
// The keywords are drawn from the database itself (an order number, a phone number and a name that exist,
// chosen by a fixed rule), beside fixed words: common and rare Chinese, English, one character, a miss.
// The database is the demo's (administrator password `bench-pass-1`: run the demo with ADMIN_PASSWORD set).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { option } from './client.mjs';
import { ADMIN_PASSWORD, startServer } from './server.mjs';

const dataDir = option('data-dir');
const databaseUrl = option('database-url');
const rounds = Number(option('rounds', '5'));
const JSON_OUT = process.argv.includes('--json');
if (!dataDir && !databaseUrl) {
  process.stderr.write('name the database: --data-dir <SQLite DATA_DIR> or --database-url <postgres://…>\n');
  process.exit(2);
}

/** One query against the bench's database, whichever it is. */
async function opener() {
  if (databaseUrl) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    return { all: async (text) => (await client.query(text)).rows, close: () => client.end() };
  }
  const { default: Database } = await import('better-sqlite3');
  const database = new Database(join(dataDir, 'parley.db'), { readonly: true, fileMustExist: true });
  return { all: async (text) => database.prepare(text).all(), close: () => database.close() };
}

const scratch = databaseUrl ? mkdtempSync(join(tmpdir(), 'parley-search-')) : undefined;
const started = Date.now();
const server = await startServer({ dataDir: dataDir ?? scratch, env: databaseUrl ? { DATABASE_URL: databaseUrl } : {} });
const db = await opener();

// The backfill: done when every index's low mark is 0 (a build without the indexes has no such table).
let backfillMs = 0;
for (;;) {
  let lows;
  try {
    lows = (await db.all('select low from search_backfill')).map((row) => Number(row.low));
  } catch {
    break;
  }
  if (lows.every((low) => low === 0)) break;
  await sleep(200);
  backfillMs = Date.now() - started;
}

const [counts] = await db.all(
  'select (select count(*) from messages) as messages, (select count(*) from visitors) as visitors, (select count(*) from conversations) as conversations',
);
const pick = async (text) => (await db.all(text))[0];
const order = await pick("select msg from messages where msg like '订单 PL%' order by id limit 1 offset 1000");
const named = await pick("select name, phone from visitors where name <> '' order by id limit 1 offset 500");
const KEYWORDS = {
  'order number': order ? /PL\d+/.exec(order.msg)[0] : 'PL12345678',
  'phone number': named?.phone ?? '13800000042',
  'visitor name': named?.name ?? '张伟',
  // Keywords that find a good part of all visitors by their fields: a phone's first digits, a surname.
  'phone prefix': '138',
  surname: named?.name?.[0] ?? '张',
  'Chinese, common': '发货',
  'Chinese, rarer': '企业微信插件',
  'English word': 'arrived',
  'one character': '票',
  'no match': '量子纠缠',
};

const api = async (path, token) => {
  const response = await fetch(`${server.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return response.json();
};
const login = await fetch(`${server.url}/api/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
}).then((response) => response.json());
const token = login.data?.token;
if (!token) throw new Error(`login failed: ${JSON.stringify(login)}`);

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const results = [];
for (const [kind, keyword] of Object.entries(KEYWORDS)) {
  for (const [list, path] of [
    ['history', '/api/history/getList'],
    ['visitors', '/api/user/getList'],
  ]) {
    const times = [];
    let total = 0;
    let more = false;
    for (let round = 0; round < rounds; round += 1) {
      const at = performance.now();
      const answer = await api(`${path}?pageNo=1&pageSize=20&keyword=${encodeURIComponent(keyword)}`, token);
      times.push(performance.now() - at);
      if (answer.code !== 200) throw new Error(`${path} answered ${JSON.stringify(answer).slice(0, 200)}`);
      total = answer.data.total;
      more = answer.data.more === true;
    }
    results.push({ kind, keyword, list, total, more, p50: percentile(times, 50), p95: percentile(times, 95) });
  }
}
await db.close();
await server.stop();
if (scratch) rmSync(scratch, { recursive: true, force: true });

const all = results.flatMap((row) => [row.p95]);
if (JSON_OUT) process.stdout.write(`${JSON.stringify({ counts, backfillMs, rounds, results })}\n`);
else {
  process.stdout.write(
    `${counts.messages} messages, ${counts.visitors} visitors, ${counts.conversations} conversations; ${backfillMs ? `backfill ${backfillMs} ms after start` : 'nothing to backfill'}\n`,
  );
  for (const row of results)
    process.stdout.write(
      `${row.kind.padEnd(16)} ${JSON.stringify(row.keyword).padEnd(14)} ${row.list.padEnd(8)} ${`${row.more ? '>' : ''}${row.total}`.padStart(7)} found   p50 ${row.p50.toFixed(1).padStart(8)} ms   p95 ${row.p95.toFixed(1).padStart(8)} ms\n`,
    );
  process.stdout.write(`worst p95 ${Math.max(...all).toFixed(1)} ms\n`);
}
