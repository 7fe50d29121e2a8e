// `npm test`: lint, types, unit and server suites (SQLite; then PostgreSQL and Redis when
// TEST_DATABASE_URL / TEST_REDIS_URL are set), then the browser suites in Chromium.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
/** Each failed test by file and name, printed again at the end: a long run's log is often read from its tail. */
const failedTests = [];
const reports = mkdtempSync(join(tmpdir(), 'parley-test-'));

function run(title, command, args, env = {}) {
  process.stdout.write(`\n━━ ${title}\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) failures.push(title);
  return result.status === 0;
}

function countVitest(file) {
  if (!existsSync(file)) return;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests;
  totals.skipped += report.numPendingTests + report.numTodoTests;
  for (const file of report.testResults ?? []) {
    for (const test of file.assertionResults ?? []) {
      if (test.status !== 'failed') continue;
      const where = file.name.startsWith(root) ? file.name.slice(root.length) : file.name;
      const reason = (test.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 300);
      failedTests.push(`${where} › ${test.fullName}\n     ${reason}`);
    }
  }
}

function vitest(title, file, args, env) {
  const out = join(reports, file);
  run(title, 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...args], env);
  countVitest(out);
}

run('dependency licences', process.execPath, ['scripts/check-licenses.mjs']);
run('dependency engines (Node range)', process.execPath, ['scripts/check-engines.mjs']);
run('build (console, widget, server)', process.execPath, ['scripts/build.mjs']);
run('lint (biome)', 'npx', ['biome', 'check', '.']);
run('types (tsc -b, incremental)', process.execPath, ['scripts/typecheck.mjs']);

const withoutServices = { TEST_DATABASE_URL: '', TEST_REDIS_URL: '' };
vitest('unit and server suites on SQLite', 'vitest-sqlite.json', [], withoutServices);
if (process.env.TEST_DATABASE_URL || process.env.TEST_REDIS_URL) {
  const on = [process.env.TEST_DATABASE_URL && 'PostgreSQL', process.env.TEST_REDIS_URL && 'Redis'].filter(Boolean).join(' and ');
  vitest(`server suite on ${on}`, 'vitest-services.json', ['--project', 'server']);
}

const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** One run of the browser suites (a Playwright project), its results counted with the others'. */
function playwright(title, project, env) {
  const out = join(reports, `playwright-${project}.json`);
  run(title, 'npx', ['playwright', 'test', '-c', 'e2e/playwright.config.ts', '--project', project], {
    CHROMIUM_PATH: chromium,
    PLAYWRIGHT_JSON_OUTPUT_NAME: out,
    ...env,
  });
  if (!existsSync(out)) return;
  const { stats, suites } = JSON.parse(readFileSync(out, 'utf8'));
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      if (spec.tests?.some((test) => test.status === 'unexpected')) failedTests.push(`${spec.file}:${spec.line} › ${spec.title}`);
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of suites ?? []) walk(suite);
  if (stats.flaky > 0) process.stdout.write(`\n!! ${stats.flaky} browser test(s) passed only on retry (flaky): see the list above.\n`);
  totals.passed += stats.expected + stats.flaky;
  totals.failed += stats.unexpected;
  totals.skipped += stats.skipped;
}

if (existsSync(chromium)) {
  // The accessibility scans only read, and take two workers well even where the chats take one (see
  // e2e/playwright.config.ts); E2E_WORKERS, when set, decides for both.
  playwright('browser suites: accessibility scans (Playwright, Chromium)', 'a11y', { E2E_WORKERS: process.env.E2E_WORKERS || '2' });
  playwright('browser suites (Playwright, Chromium)', 'suites', {});
} else if (process.env.E2E_REQUIRED === '1') {
  process.stdout.write(`\n!! Chromium not found at ${chromium}, and E2E_REQUIRED=1: the browser suites cannot run.\n`);
  failures.push('browser suites (Chromium missing)');
} else {
  process.stdout.write(
    `\n${'!'.repeat(78)}\n!! BROWSER SUITES SKIPPED: Chromium not found at ${chromium}.\n!! Install it (Debian: apt-get install -y chromium) or set CHROMIUM_PATH.\n${'!'.repeat(78)}\n`,
  );
}

if (failedTests.length) process.stdout.write(`\nfailed tests:\n${failedTests.map((test) => `  ✗ ${test}`).join('\n')}\n`);
process.stdout.write(`\n${failures.length ? `FAILED: ${failures.join('; ')}` : 'all steps passed'}\n`);
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(failures.length ? 1 : 0);
