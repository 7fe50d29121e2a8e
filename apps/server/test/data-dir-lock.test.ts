import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from './harness.js';
import { buildOnce, spawnServer } from './processes.js';

const dataDir = mkdtempSync(join(tmpdir(), 'parley-lock-'));
const run = () => spawnServer('apps/server/dist/main.js', dataDir, 'unused', { ADMIN_PASSWORD: 'admin-pass-1' });

beforeAll(buildOnce, 180_000);

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

// PostgreSQL serves several processes by design; a SQLite DATA_DIR serves one.
describe.skipIf(backends.postgres)('a second server process on the same SQLite DATA_DIR', () => {
  it('refuses to start with a clear message, and starts once the first is gone, even after kill -9', async () => {
    const first = await run();
    let outcome = 'started';
    try {
      const second = await run();
      await second.stop();
    } catch (error) {
      outcome = (error as Error).message;
    }
    console.info(`second process on one DATA_DIR: ${outcome === 'started' ? 'started' : 'refused'}`);
    expect(outcome).toMatch(/^server exited with 1:/);
    expect(outcome).toContain(`Another Parley process is using DATA_DIR ${dataDir}`);
    expect(outcome).not.toMatch(/\n\s+at /);
    // The first one keeps serving.
    expect(
      (
        await fetch(`${first.url}/api/visitor/init`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ url: 'https://shop.example/' }),
        })
      ).status,
    ).toBe(200);

    const gone = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await gone;
    const third = await run();
    expect(await third.stop()).toBe(0);
  }, 120_000);
});
