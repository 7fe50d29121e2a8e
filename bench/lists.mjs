// The back office on a busy site's history: starts the built server on a database filled by
// `npm run demo -- --scale n` and asks, as an administrator, for the first page (20 rows, with its total)
// of every list of the console, a conversation's detail and a visitor's detail (the newest, and the one
// with the most visits), one request at a time, several rounds; prints p50 / p95 per request.
//
//   node bench/lists.mjs --data-dir /tmp/demo [--rounds 5] [--json]                 SQLite
//   node bench/lists.mjs --database-url postgres://root@127.0.0.1:5432/parley_bench  PostgreSQL
//   BENCH_ROOT=/path/to/other/checkout node bench/lists.mjs …                        another build
//
// The database is the demo's (administrator password `bench-pass-1`: run the demo with ADMIN_PASSWORD set).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** The console's lists: each page asks for its first page of 20 as it opens. */
const LISTS = [
  'history',
  'user',
  'letter',
  'record',
  'search',
  'audit',
  'service',
  'role',
  'label',
  'link',
  'area',
  'friendly',
  'router',
  'notice',
  'robot/ask',
  'webhook',
  'apiToken',
];

const scratch = databaseUrl ? mkdtempSync(join(tmpdir(), 'parley-lists-')) : undefined;
const server = await startServer({ dataDir: dataDir ?? scratch, env: databaseUrl ? { DATABASE_URL: databaseUrl } : {} });
const login = await fetch(`${server.url}/api/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
}).then((response) => response.json());
const token = login.data?.token;
if (!token) throw new Error(`login failed: ${JSON.stringify(login)}`);
const api = async (path) => {
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const answer = await response.json();
  if (answer.code !== 200) throw new Error(`${path} answered ${JSON.stringify(answer).slice(0, 200)}`);
  return answer.data;
};

// The details asked for: the newest conversation, and the visitor of the first page with the most visits.
const newest = (await api('/api/history/getList?pageNo=1&pageSize=1')).list[0];
const visitors = (await api('/api/user/getList?pageNo=1&pageSize=100')).list;
const busiest = [...visitors].sort((a, b) => (b.visits ?? 0) - (a.visits ?? 0))[0] ?? visitors[0];
const requests = [
  ...LISTS.map((area) => [`${area} list`, `/api/${area}/getList?pageNo=1&pageSize=20`]),
  ['conversation detail', `/api/history/detail?id=${newest.id}`],
  ['visitor detail', `/api/user/detail?YQToken=${encodeURIComponent(busiest.YQToken)}`],
];

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const results = [];
for (const [name, path] of requests) {
  const times = [];
  let total;
  for (let round = 0; round < rounds; round += 1) {
    const at = performance.now();
    const data = await api(path);
    times.push(performance.now() - at);
    total = data?.total;
  }
  results.push({ name, total, p50: percentile(times, 50), p95: percentile(times, 95) });
}
await server.stop();
if (scratch) rmSync(scratch, { recursive: true, force: true });

if (JSON_OUT) process.stdout.write(`${JSON.stringify({ rounds, results })}\n`);
else {
  for (const row of results)
    process.stdout.write(
      `${row.name.padEnd(22)} ${row.total === undefined ? ''.padStart(9) : String(row.total).padStart(9)}   p50 ${row.p50.toFixed(1).padStart(8)} ms   p95 ${row.p95.toFixed(1).padStart(8)} ms\n`,
    );
  process.stdout.write(`worst p95 ${Math.max(...results.map((row) => row.p95)).toFixed(1)} ms\n`);
}
