// The statistics of CONTRACT §9 on a busy site: starts the built server on a database filled by
// `npm run demo -- --scale n`, logs in as the administrator, and times every call over the date presets
// (today, yesterday, 7 days, 30 days, a year), several rounds; prints p50 / p95 per call.
//
//   node bench/stats.mjs --data-dir /tmp/demo [--rounds 5]                          SQLite
//   node bench/stats.mjs --database-url postgres://root@127.0.0.1:5432/parley_bench  PostgreSQL
//
// The database is the demo's (administrator password `bench-pass-1`: run the demo with ADMIN_PASSWORD
// set to it). Calls run one at a time, so each figure is one request's own time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { option } from './client.mjs';
import { ADMIN_PASSWORD, startServer } from './server.mjs';

const DIMS = ['source', 'engine', 'area', 'keyword', 'platform'];
const KINDS = ['talk', 'evaluate', 'state'];
const BUDGET_MS = 1000;

const dataDirOption = option('data-dir');
const databaseUrl = option('database-url');
const rounds = Number(option('rounds', '5'));
if (!dataDirOption && !databaseUrl) {
  process.stderr.write('name the database: --data-dir <SQLite DATA_DIR> or --database-url <postgres://…>\n');
  process.exit(2);
}

/** Uploads still need a directory when the rows are in PostgreSQL; a scratch one, removed at the end. */
const scratch = databaseUrl ? mkdtempSync(join(tmpdir(), 'parley-stats-')) : undefined;
const server = await startServer({
  dataDir: dataDirOption ?? scratch,
  env: databaseUrl ? { DATABASE_URL: databaseUrl } : {},
});

function addDays(day, days) {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

try {
  const login = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  const { token } = (await login.json()).data ?? (await Promise.reject(new Error(`login answered ${login.status}`)));
  const get = async (path) => {
    const started = performance.now();
    const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await response.text();
    const ms = performance.now() - started;
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${body.slice(0, 200)}`);
    return { ms, body };
  };

  // Today in the site's zone, as the server counts it.
  const today = JSON.parse((await get('/api/census/overview')).body).data.period.to;
  const presets = {
    today: [today, today],
    yesterday: [addDays(today, -1), addDays(today, -1)],
    '7 days': [addDays(today, -6), today],
    '30 days': [addDays(today, -29), today],
    year: [addDays(today, -364), today],
  };
  const calls = [
    ...DIMS.map((dim) => [`flow ${dim}`, `/api/census/flow?dim=${dim}`]),
    ...DIMS.map((dim) => [`talk ${dim}`, `/api/census/talk?dim=${dim}`]),
    ...KINDS.map((kind) => [`service ${kind}`, `/api/census/service?kind=${kind}`]),
    ['overview', '/api/census/overview?'],
    ['flow source CSV', '/api/census/flow?dim=source&format=csv'],
  ];

  const year = JSON.parse((await get(`/api/census/flow?dim=platform&from=${presets.year[0]}&to=${today}`)).body).data;
  process.stdout.write(
    `${databaseUrl ? 'PostgreSQL' : 'SQLite'}; the year: ${year.totals.visitors} visitors, ${year.totals.visits} visits, ${year.totals.conversations} conversations; ${rounds} rounds × ${Object.keys(presets).length} presets\n`,
  );

  // Per call, every preset's time in every round: the p95 is over the presets, as the budget says.
  const times = new Map(calls.map(([name]) => [name, { all: [], byPreset: new Map() }]));
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, path] of calls) {
      for (const [preset, [from, to]] of Object.entries(presets)) {
        const separator = path.endsWith('?') ? '' : '&';
        const { ms } = await get(`${path}${separator}from=${from}&to=${to}`);
        const entry = times.get(name);
        entry.all.push(ms);
        entry.byPreset.set(preset, [...(entry.byPreset.get(preset) ?? []), ms]);
      }
    }
  }

  const quantile = (values, q) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  };
  const fixed = (ms) => ms.toFixed(ms < 10 ? 1 : 0).padStart(6);
  process.stdout.write(`${'call'.padEnd(16)}   p50 ms   p95 ms   slowest preset (its p50)\n`);
  let over = 0;
  for (const [name, { all, byPreset }] of times) {
    const p95 = quantile(all, 0.95);
    const [slowest, slowTimes] = [...byPreset].sort((a, b) => quantile(b[1], 0.5) - quantile(a[1], 0.5))[0];
    if (p95 >= BUDGET_MS) over += 1;
    process.stdout.write(
      `${name.padEnd(16)}   ${fixed(quantile(all, 0.5))}   ${fixed(p95)}   ${slowest} (${fixed(quantile(slowTimes, 0.5)).trim()})${p95 >= BUDGET_MS ? '   OVER 1 s' : ''}\n`,
    );
  }
  process.stdout.write(over ? `${over} call(s) over the 1 s p95 budget\n` : 'every call under the 1 s p95 budget\n');
} finally {
  await server.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
