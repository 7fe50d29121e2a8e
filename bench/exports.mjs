// `/healthz` while history exports run: starts the built server on a database filled by
// `npm run demo -- --scale 100`, logs in as the administrator, asks `/healthz` every 10 ms (each request
// sent on time whatever the earlier ones are doing, so a stalled server shows as the waits it causes),
// first 3 s alone, then while N exports of the last 366 days run in parallel, read as fast as they come.
// Prints p50 / p99 / max of `/healthz` in each phase, and each export's rows and time.
//
//   node bench/exports.mjs --data-dir /tmp/busy --password <admin's> [--exports 8] [--json]
//   node bench/exports.mjs --database-url postgres://root@127.0.0.1:5432/parley_bench --password <admin's>
//
// The server's export limits (EXPORT_MAX_PER_AGENT, EXPORT_MAX_PER_PROCESS) are raised to N for the run,
// so that all N exports run at once, one administrator's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { option } from './client.mjs';
import { ADMIN_PASSWORD, startServer } from './server.mjs';

const dataDirOption = option('data-dir');
const databaseUrl = option('database-url');
const exports = Number(option('exports', '8'));
const password = option('password', ADMIN_PASSWORD);
const json = process.argv.includes('--json');
const INTERVAL_MS = 10;
const IDLE_MS = 3000;
if (!dataDirOption && !databaseUrl) {
  process.stderr.write('name the database: --data-dir <SQLite DATA_DIR> or --database-url <postgres://…>\n');
  process.exit(2);
}

const scratch = databaseUrl ? mkdtempSync(join(tmpdir(), 'parley-exports-')) : undefined;
const server = await startServer({
  dataDir: dataDirOption ?? scratch,
  env: {
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    EXPORT_MAX_PER_AGENT: String(exports),
    EXPORT_MAX_PER_PROCESS: String(exports),
  },
});

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    count: sorted.length,
    failed: samples.failed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
  };
}
const ms = (value) => `${value.toFixed(1)} ms`;

/**
 * Asks `/healthz` every INTERVAL_MS until stopped; answers the latencies of those it sent. A request that
 * fails (fetch gives up connecting after 10 s) counts with the time it waited, and as failed.
 */
function sampleHealth(url) {
  const latencies = [];
  let failed = 0;
  const pending = new Set();
  const timer = setInterval(() => {
    const started = performance.now();
    const request = fetch(`${url}/healthz`)
      .then((response) => response.text().then(() => response.status))
      .then((status) => {
        if (status !== 200) failed += 1;
      })
      .catch(() => {
        failed += 1;
      })
      .finally(() => {
        latencies.push(performance.now() - started);
        pending.delete(request);
      });
    pending.add(request);
  }, INTERVAL_MS);
  return async () => {
    clearInterval(timer);
    await Promise.all(pending);
    return Object.assign(latencies, { failed });
  };
}

try {
  const login = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  const { token } = (await login.json()).data ?? (await Promise.reject(new Error(`login answered ${login.status}`)));
  const headers = { authorization: `Bearer ${token}` };
  // Today in the site's zone, as the server counts it; the export covers it and the 365 days before.
  const overview = await fetch(`${server.url}/api/census/overview`, { headers }).then((response) => response.json());
  const to = overview.data.period.to;
  const from = new Date(Date.parse(`${to}T00:00:00Z`) - 365 * 86_400_000).toISOString().slice(0, 10);

  const idle = await new Promise((resolve) => {
    const stop = sampleHealth(server.url);
    setTimeout(() => stop().then(resolve), IDLE_MS);
  });

  const stop = sampleHealth(server.url);
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: exports }, () =>
      exportOnce().catch((error) => ({
        status: `failed (${error.cause?.code ?? error.message})`,
        rows: 0,
        ms: performance.now() - started,
      })),
    ),
  );
  async function exportOnce() {
    const response = await fetch(`${server.url}/api/history/export?from=${from}&to=${to}`, { headers });
    if (response.status !== 200) return { status: response.status, rows: 0, ms: performance.now() - started };
    // Rows counted by their line ends outside quotes: a cell may hold a line break of its own.
    let rows = -1;
    let quoted = false;
    const decoder = new TextDecoder();
    for await (const chunk of response.body) {
      for (const char of decoder.decode(chunk, { stream: true })) {
        if (char === '"') quoted = !quoted;
        else if (char === '\n' && !quoted) rows += 1;
      }
    }
    return { status: 200, rows, ms: performance.now() - started };
  }
  const busy = await stop();

  const idleFigures = summary(idle);
  const busyFigures = summary(busy);
  if (json) {
    process.stdout.write(`${JSON.stringify({ exports, from, to, idle: idleFigures, busy: busyFigures, results })}\n`);
  } else {
    process.stdout.write(`${databaseUrl ? 'PostgreSQL' : 'SQLite'}; ${exports} exports of ${from} … ${to}\n`);
    process.stdout.write(
      `/healthz alone: ${idleFigures.count} requests, p50 ${ms(idleFigures.p50)}, p99 ${ms(idleFigures.p99)}, max ${ms(idleFigures.max)}\n`,
    );
    process.stdout.write(
      `/healthz during the exports: ${busyFigures.count} requests (${busyFigures.failed} failed), p50 ${ms(busyFigures.p50)}, p99 ${ms(busyFigures.p99)}, max ${ms(busyFigures.max)}\n`,
    );
    for (const [index, result] of results.entries()) {
      process.stdout.write(`export ${index + 1}: HTTP ${result.status}, ${result.rows} rows in ${(result.ms / 1000).toFixed(1)} s\n`);
    }
  }
} finally {
  await server.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
