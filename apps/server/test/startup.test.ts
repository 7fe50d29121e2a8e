import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dropSchema, spawnServer } from './processes.js';
import { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';

const dataDir = mkdtempSync(join(tmpdir(), 'parley-start-'));
const schema = `s_${randomBytes(6).toString('hex')}`;

/** Runs `npm start`'s script exactly as a user does. */
const start = () => spawnServer('scripts/start.mjs', dataDir, schema);

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
  await dropSchema(schema);
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
    // The log is written in the background: wait for the request's line rather than racing it.
    await waitFor(() => first.output().includes('/api/talk/messages'), 10_000, 'the request log line');
    expect(first.output()).toContain('[redacted]');
    expect(first.output()).not.toContain(token);
    expect(first.output()).not.toContain('Q'.repeat(24));
    // SIGTERM closes sockets cleanly ("going away") and the process exits 0.
    expect(await first.stop()).toBe(0);
    expect(await socket.closed()).toBe(1001);

    const second = await start();
    expect(second.output()).not.toMatch(/password:/);
    expect((await login(second.url, 'admin', printed ?? '')).status).toBe(200);
    // The session of the first run survives the restart.
    expect((await fetch(`${second.url}/api/userInfo`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect(await second.stop()).toBe(0);
  }, 300_000);
});
