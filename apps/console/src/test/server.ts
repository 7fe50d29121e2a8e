import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const entry = join(root, 'apps/server/dist/main.js');

export interface TestServer {
  url: string;
  adminPassword: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** The real, built server in its own data directory, as `npm start` runs it. */
export async function startServer(env: Record<string, string> = {}): Promise<TestServer> {
  // Rebuilt whenever its sources are newer than the bundle, so these tests never run an old server.
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '@parley/server'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('the server could not be built');
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-console-'));
  const adminPassword = 'admin-pass-1';
  const child: ChildProcess = spawn(process.execPath, [entry], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: adminPassword,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    const up = await fetch(`${url}/api/publicKey`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null) throw new Error('the server exited during start-up');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    adminPassword,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
