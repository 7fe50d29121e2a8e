import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { Socket } from 'node:net';
import { waitFor } from './waiting.js';

/** Fault tests stop Redis: they run a redis-server of their own, where the binary is installed. */
export const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

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
