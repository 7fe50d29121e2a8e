import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from './env';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A server of one suite's own. */
export interface PrivateServer {
  url: string;
  stop: () => Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no free port');
  return address.port;
}

async function waitUntilUp(child: ChildProcess, url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the private server exited with ${child.exitCode}`);
    const up = await fetch(`${url}/api/publicKey`).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the private server did not answer on ${url}`);
}

/**
 * Starts the built server (the global setup built it) on a port and database of its own. Suites that
 * change site-wide settings (work hours, region blocks, the pre-chat form) use one, so the suites
 * running beside them keep seeing the defaults.
 */
export async function startPrivateServer(): Promise<PrivateServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-e2e-private-'));
  const widget = join(root, 'apps', 'widget', 'dist');
  const served: Record<string, string> = {};
  if (existsSync(widget)) {
    cpSync(widget, join(dataDir, 'widget-dist'), { recursive: true });
    served.WIDGET_DIR = join(dataDir, 'widget-dist');
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
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
      // The suites name a visitor's address with X-Forwarded-For, as a reverse proxy would.
      TRUST_PROXY: '127.0.0.1',
      ...served,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await waitUntilUp(child, url);
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
