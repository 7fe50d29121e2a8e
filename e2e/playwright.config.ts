import { defineConfig } from '@playwright/test';
import { BASE_URL, CHROMIUM_PATH } from './support/env';

export default defineConfig({
  testDir: './tests',
  globalSetup: './support/global-setup.ts',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // Each worker has a server of its own (support/global-setup.ts), so workers never share agents,
  // visitors or settings. CI runs one: on 2 cores the browsers alone keep both busy, and a second
  // worker halved each test's speed for no shorter run (measured 2026-11-25). E2E_WORKERS sets it.
  workers: Number(process.env.E2E_WORKERS || (process.env.CI ? 1 : 2)),
  // The accessibility scans apart: each test only reads, and most of its time is axe's script in one
  // renderer, so two workers end them sooner where the suites' chats would only slow each other
  // (a11y.spec.ts on 2 cores: 5.8 min with one worker, 4.5 with two, 2026-11-29). `npm test` runs the
  // two projects one after the other, each with its own number of workers.
  projects: [
    { name: 'a11y', testMatch: /a11y\.spec\.ts$/ },
    { name: 'suites', testIgnore: /a11y\.spec\.ts$/ },
  ],
  // In CI one retry absorbs a slow machine's timing; a retried pass is reported as flaky, not hidden.
  retries: process.env.CI ? 1 : 0,
  forbidOnly: Boolean(process.env.CI),
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  outputDir: process.env.E2E_OUTPUT_DIR || '../.tmp/playwright-results',
  use: {
    baseURL: BASE_URL,
    // Offline caching would make one test's build leak into the next.
    serviceWorkers: 'block',
    // Recording a trace of every test costs each one its snapshots; a failure's retry records one instead.
    trace: 'on-first-retry',
    screenshot: 'only-on-failure',
    viewport: { width: 1440, height: 900 },
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    },
  },
});
