import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer, Socket } from 'node:net';

/** Fault tests stop Redis: they run a redis-server of their own, where the binary is installed. */
export const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `check` until it holds or `ms` pass. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

/** A redis-server of this test's own, so stopping it disturbs nothing else. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  await waitFor(() => accepts(port), 10_000, 'redis-server to listen');
  return child;
}

export function stopRedis(child: ChildProcess, port: number): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => {
      waitFor(async () => !(await accepts(port)), 10_000, 'redis-server to stop').then(resolve, resolve);
    });
    child.kill('SIGKILL');
  });
}
