import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { APP_ROOT, backends } from './harness.js';
import { TestSocket } from './sockets.js';

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

const dataDir = mkdtempSync(join(tmpdir(), 'parley-start-'));
const schema = `s_${randomBytes(6).toString('hex')}`;

/** Runs `npm start`'s script exactly as a user does, and waits for the line that names the URL. */
function start(): Promise<Started> {
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: APP_ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      PORT: '0',
      ...(backends.postgres ? { DATABASE_URL: backends.postgres, DATABASE_SCHEMA: schema } : {}),
      ...(backends.redis ? { REDIS_URL: backends.redis, REDIS_PREFIX: `parley-${schema}` } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line in time:\n${text}`)), 150_000);
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(text);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1], output: () => text });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${text}`));
    });
  });
}

function stop(started: Started): Promise<number | null> {
  return new Promise((resolve) => {
    started.child.removeAllListeners('exit');
    started.child.once('exit', (code) => resolve(code));
    started.child.kill('SIGTERM');
  });
}

async function login(url: string, username: string, password: string) {
  const response = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  return { status: response.status, body: (await response.json()) as { data: { token: string } | null } };
}

afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  if (backends.postgres) {
    const client = new pg.Client({ connectionString: backends.postgres });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
});

describe('npm start', () => {
  it('starts on a free port, prints the first password once, keeps data across a restart and stops on SIGTERM', async () => {
    const first = await start();
    const printed = /password: (\S+)/.exec(first.output())?.[1];
    expect(printed).toBeTruthy();
    expect(first.output()).not.toMatch(/"password"|token=/);
    const good = await login(first.url, 'admin', printed ?? '');
    expect(good.status).toBe(200);
    const token = good.body.data?.token ?? '';
    const info = await fetch(`${first.url}/api/userInfo`, { headers: { authorization: `Bearer ${token}` } });
    expect(info.status).toBe(200);
    // A socket whose token rides in the URL: the request log must not show it.
    const socket = await TestSocket.open(`${first.url.replace('http', 'ws')}/ws/agent?token=${token}`);
    await socket.frame('0000');
    await fetch(`${first.url}/api/talk/messages?YQToken=${'Q'.repeat(24)}`, { headers: { authorization: `Bearer ${token}` } });
    expect(first.output()).toContain('[redacted]');
    expect(first.output()).not.toContain(token);
    expect(first.output()).not.toContain('Q'.repeat(24));
    // SIGTERM closes sockets cleanly ("going away") and the process exits 0.
    expect(await stop(first)).toBe(0);
    expect(await socket.closed()).toBe(1001);

    const second = await start();
    expect(second.output()).not.toMatch(/password:/);
    expect((await login(second.url, 'admin', printed ?? '')).status).toBe(200);
    // The session of the first run survives the restart.
    expect((await fetch(`${second.url}/api/userInfo`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect(await stop(second)).toBe(0);
  }, 300_000);
});
