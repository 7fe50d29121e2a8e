import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_PASSWORD, ADMIN_USERNAME, BASE_URL, E2E_PORT, WECHAT_DOUBLE_PORT } from './env';

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

async function waitUntilUp(child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    const up = await fetch(`${BASE_URL}/api/publicKey`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server did not answer on ${BASE_URL}`);
}

/** Builds, then starts the server as `npm start` would, in its own data directory; stops it afterwards. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  // Another run's server on this port would answer in place of ours, and the two runs would share data.
  const taken = await fetch(`${BASE_URL}/api/publicKey`).then(
    () => true,
    () => false,
  );
  if (taken) throw new Error(`something already answers on ${BASE_URL}: stop it, or run the suites on another E2E_PORT`);
  build();
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
      PORT: String(E2E_PORT),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_USERNAME,
      ADMIN_PASSWORD,
      LOG_LEVEL: 'warn',
      WECHAT_API_BASE: `http://127.0.0.1:${WECHAT_DOUBLE_PORT}`,
      // The webhook suite's receiver listens on loopback, which the outbound rule refuses unless listed.
      OUTBOUND_ALLOW: '127.0.0.1',
      ...served,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await waitUntilUp(child);
  return async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    rmSync(dataDir, { recursive: true, force: true });
  };
}
