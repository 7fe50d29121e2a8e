import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOnce, dropSchema, type ServerProcess, spawnServer } from './processes.js';

const dataDir = mkdtempSync(join(tmpdir(), 'parley-shutdown-'));
const schema = `sd_${randomBytes(6).toString('hex')}`;
const SHUTDOWN_TIMEOUT_MS = 1500;

beforeAll(buildOnce, 180_000);

afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await dropSchema(schema);
});

/** Sends SIGTERM and resolves with how long the process took to exit, or 'still running' past the deadline. */
async function stopTimed(server: ServerProcess): Promise<number | 'still running'> {
  const exited = new Promise<number>((resolve) => server.child.once('exit', () => resolve(performance.now())));
  const signalled = performance.now();
  server.child.kill('SIGTERM');
  const deadline = new Promise<'still running'>((resolve) => {
    const timer = setTimeout(() => resolve('still running'), SHUTDOWN_TIMEOUT_MS + 5000);
    timer.unref();
  });
  const outcome = await Promise.race([exited, deadline]);
  if (outcome === 'still running') {
    server.child.kill('SIGKILL');
    return outcome;
  }
  return Math.round(outcome - signalled);
}

/** Requests whose log lines are long (the URL is logged), to fill a pipe nobody reads. */
async function logALot(url: string, requests: number): Promise<void> {
  const pad = 'x'.repeat(6000);
  for (let sent = 0; sent < requests; sent += 20) {
    await Promise.all(Array.from({ length: 20 }, () => fetch(`${url}/no-such-page?pad=${pad}`).then((response) => response.text())));
  }
}

const start = () =>
  spawnServer('apps/server/dist/main.js', dataDir, schema, {
    ADMIN_PASSWORD: 'admin-pass-1',
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  });

describe('SIGTERM', () => {
  it('stops within its deadline when the log pipe is full because its reader stopped reading', async () => {
    const server = await start();
    expect(server.output()).toMatch(/Parley listening on http:\/\/127\.0\.0\.1:\d+/);
    server.child.stdout?.pause();
    // Several megabytes of log against a pipe buffer of a few hundred kilobytes.
    await logALot(server.url, 400);
    const took = await stopTimed(server);
    console.info(`shutdown with a log pipe nobody reads: ${took}${took === 'still running' ? '' : ' ms'}`);
    expect(took).not.toBe('still running');
  }, 120_000);

  it('stops within its deadline when the reader of its log is gone (EPIPE)', async () => {
    const server = await start();
    server.child.stdout?.destroy();
    await logALot(server.url, 40);
    const took = await stopTimed(server);
    console.info(`shutdown with a broken log pipe: ${took}${took === 'still running' ? '' : ' ms'}`);
    expect(took).not.toBe('still running');
  }, 120_000);
});
