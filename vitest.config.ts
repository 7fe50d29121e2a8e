import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A file per core: vitest's own default leaves one core free, a single worker on 2 cores, where the
    // server suites' files mostly wait on their servers, databases and child processes (2 cores, 2026-11-29:
    // SQLite 316 → 207–218 s, PostgreSQL and Redis 387 → 256 s, every file's data its own).
    maxWorkers: availableParallelism(),
    projects: [
      { test: { name: 'protocol', include: ['packages/protocol/src/**/*.test.ts'] } },
      {
        test: {
          name: 'server',
          include: ['apps/server/src/**/*.test.ts', 'apps/server/test/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          // A condition polled for is waited on as long as a busy machine needs (its first pass ends the
          // wait); vitest's 1 s made a poll of several API calls fail under load before it ever ran thrice.
          expect: { poll: { timeout: 10_000 } },
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'console',
          include: ['apps/console/src/**/*.test.{ts,tsx}'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      { test: { name: 'widget', include: ['apps/widget/src/**/*.test.ts'] } },
      { test: { name: 'scripts', include: ['scripts/**/*.test.mjs'] } },
    ],
  },
});
