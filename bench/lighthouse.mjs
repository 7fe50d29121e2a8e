// Lighthouse performance of the console's login page, in Debian's Chromium, with Lighthouse's mobile
// defaults (simulated slow 4G, 4× CPU slowdown) and its desktop preset. Prints each run's score and
// metrics and the median score per form factor.
//
//   node bench/lighthouse.mjs --runs 3
//
// The server is the built one (`npm run build` first: the precompressed assets are part of what is
// measured), on a fresh SQLite DATA_DIR. Lighthouse itself is fetched by npx on first use, so it is
// not a dependency of the project.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './server.mjs';

const runsIndex = process.argv.indexOf('--runs');
const RUNS = runsIndex > 0 ? Number(process.argv[runsIndex + 1]) : 3;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROME_FLAGS = '--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --no-first-run';
const METRICS = ['first-contentful-paint', 'largest-contentful-paint', 'total-blocking-time', 'speed-index', 'cumulative-layout-shift'];

function lighthouse(url, preset, output) {
  const args = [
    '--yes',
    'lighthouse@12',
    url,
    '--only-categories=performance',
    `--chrome-flags=${CHROME_FLAGS}`,
    '--output=json',
    `--output-path=${output}`,
    '--quiet',
  ];
  if (preset === 'desktop') args.push('--preset=desktop');
  // Lighthouse now and then fails to record a trace (NO_NAVSTART); such a run is retried, once.
  let result = { status: 1 };
  for (let attempt = 0; attempt < 2 && result.status !== 0; attempt++) {
    result = spawnSync('npx', args, { env: { ...process.env, CHROME_PATH: CHROMIUM }, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  if (result.status !== 0) throw new Error(`lighthouse exited with ${result.status}`);
  const report = JSON.parse(readFileSync(output, 'utf8'));
  return {
    score: Math.round(report.categories.performance.score * 100),
    metrics: METRICS.map((key) => `${key.replace(/-/g, ' ')} ${report.audits[key].displayValue}`).join(', '),
  };
}

const work = mkdtempSync(join(tmpdir(), 'parley-lighthouse-'));
const { url, stop } = await startServer();
try {
  for (const preset of ['mobile', 'desktop']) {
    const scores = [];
    for (let run = 1; run <= RUNS; run++) {
      const { score, metrics } = lighthouse(`${url}/#/login`, preset, join(work, `${preset}-${run}.json`));
      scores.push(score);
      console.log(`${preset} run ${run}: ${score} (${metrics})`);
    }
    scores.sort((a, b) => a - b);
    console.log(`${preset}: median ${scores[Math.floor(scores.length / 2)]} of ${RUNS} runs`);
  }
} finally {
  await stop();
  rmSync(work, { recursive: true, force: true });
}
