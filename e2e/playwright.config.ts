import { defineConfig } from '@playwright/test';
import { BASE_URL, CHROMIUM_PATH } from './support/env';

export default defineConfig({
  testDir: './tests',
  globalSetup: './support/global-setup.ts',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // The suites share one server, whose routing hands a visitor to any online agent: in CI one worker
  // keeps one file's agents from taking another file's visitors. Locally two go faster.
  workers: process.env.CI ? 1 : 2,
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
