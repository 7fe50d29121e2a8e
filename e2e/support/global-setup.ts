import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FullConfig } from '@playwright/test';
import { ADMIN_PASSWORD, ADMIN_USERNAME, serverPort, wechatDoublePort } from './env';

const root = fileURLToPath(new URL('../../', import.meta.url));

function build(): void {
  const all = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  if (all.status === 0) return;
  // One broken part should not hide the others' results: build what these suites need on its own.
  for (const workspace of ['@parley/console', '@parley/server']) {
    const one = spawnSync('npm', ['run', 'build', '--silent', '-w', workspace], { cwd: root, stdio: 'inherit' });
    if (one.status !== 0) throw new Error(`build of ${workspace} failed`);
  }
}

async function waitUntilUp(child: ChildProcess, url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    const up = await fetch(`${url}/api/publicKey`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server did not answer on ${url}`);
}

/** Starts the built server as `npm start` would, on one worker's port, in a data directory of its own. */
async function startServer(port: number): Promise<() => Promise<void>> {
  const url = `http://127.0.0.1:${port}`;
  // Another run's server on this port would answer in place of ours, and the two runs would share data.
  const taken = await fetch(`${url}/api/publicKey`).then(
    () => true,
    () => false,
  );
  if (taken) throw new Error(`something already answers on ${url}: stop it, or run the suites on another E2E_PORT`);
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-e2e-'));
  // The suites run against a snapshot of the built front ends, so a rebuild elsewhere during the run
  // (another checkout's tests, a developer's watch build) cannot swap files under the server.
  const served: Record<string, string> = {};
  for (const [name, variable] of [
    ['console', 'CONSOLE_DIR'],
    ['widget', 'WIDGET_DIR'],
  ] as const) {
    const built = join(root, 'apps', name, 'dist');
    if (!existsSync(built)) continue;
    const copy = join(dataDir, `${name}-dist`);
    cpSync(built, copy, { recursive: true });
    served[variable] = copy;
  }
  const child = spawn(process.execPath, ['apps/server/dist/main.js'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_USERNAME,
      ADMIN_PASSWORD,
      LOG_LEVEL: 'warn',
      WECHAT_API_BASE: `http://127.0.0.1:${wechatDoublePort(port)}`,
      // The webhook suite's receiver listens on loopback, which the outbound rule refuses unless listed.
      OUTBOUND_ALLOW: '127.0.0.1',
      // A test's own API client keeps its connection between calls; closed by the server after 5 s idle,
      // one was taken up again the instant it closed (read ECONNRESET). The tests' clients live a minute at most.
      KEEP_ALIVE_TIMEOUT_MS: '120000',
      ...served,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await waitUntilUp(child, url);
  return async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    rmSync(dataDir, { recursive: true, force: true });
  };
}

/**
 * Builds, then starts one server per worker (see env.ts): each worker's suites have their own agents,
 * visitors and site settings, so one file's agents never take another's visitors and one file's settings
 * never change another's pages. Stops them afterwards.
 */
export default async function globalSetup(config: FullConfig): Promise<() => Promise<void>> {
  build();
  const stops = await Promise.all(Array.from({ length: config.workers }, (_, index) => startServer(serverPort(index))));
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
