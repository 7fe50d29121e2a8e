import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openStorage } from '../src/db/index.js';
import { APP_ROOT, backends } from './harness.js';
import { buildOnce, dropSchema, type ServerProcess, spawnServer } from './processes.js';
import { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';

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

describe('SIGTERM with agents connected', () => {
  it("records each agent's console closed before the storage closes, and logs no failure", async () => {
    const server = await start();
    const call = async <T>(path: string, body: object, token?: string): Promise<T> => {
      const response = await fetch(server.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as { code: number; msg: string; data: T };
      if (answer.code !== 200) throw new Error(`${path}: ${answer.msg}`);
      return answer.data;
    };
    const signIn = async (username: string, password: string) =>
      (await call<{ token: string }>('/api/login', { username, password })).token;
    const admin = await signIn('admin', 'admin-pass-1');
    const roles = await fetch(`${server.url}/api/role/getList`, { headers: { authorization: `Bearer ${admin}` } });
    const agentRole = ((await roles.json()) as { data: { list: { id: number; name: string }[] } }).data.list.find(
      (role) => role.name === 'Agent',
    );
    // Several agents, each with a console open: each one's closing is a notice of its own at shutdown.
    const usernames = ['admin', ...Array.from({ length: 7 }, (_, index) => `closing${index}`)];
    for (const username of usernames.slice(1))
      await call(
        '/api/service/doEdit',
        { username, nickname: username, password: 'agent-pass-1', roleId: agentRole?.id, disabled: false },
        admin,
      );
    const tokens = [admin, ...(await Promise.all(usernames.slice(1).map((username) => signIn(username, 'agent-pass-1'))))];
    const sockets = await Promise.all(
      tokens.map((token) => TestSocket.open(`${server.url.replace('http', 'ws')}/ws/agent?token=${token}`)),
    );
    const storage = await openStorage(
      loadConfig(
        { DATA_DIR: dataDir, ...(backends.postgres ? { DATABASE_URL: backends.postgres, DATABASE_SCHEMA: schema } : {}) },
        APP_ROOT,
      ),
    );
    try {
      const agents = await storage.db.selectFrom('agents').select('uuid').where('username', 'in', usernames).execute();
      expect(agents).toHaveLength(usernames.length);
      /** Each agent's last recorded state in the statistics. */
      const lastStates = async () =>
        Promise.all(
          agents.map(
            async ({ uuid }) =>
              (
                await storage.db
                  .selectFrom('agent_state_log')
                  .select('state')
                  .where('agent_uuid', '=', uuid)
                  .orderBy('at', 'desc')
                  .orderBy('id', 'desc')
                  .executeTakeFirst()
              )?.state,
          ),
        );
      await waitFor(async () => (await lastStates()).every((state) => state === 'online'), 10_000, 'the consoles open to be recorded');
      // One client stops reading: it never answers "going away", and the server drops its socket after a moment.
      const silent = sockets[1];
      if (!silent) throw new Error('eight sockets were opened');
      (silent.ws as unknown as { _socket: Socket })._socket.pause();

      const took = await stopTimed(server);
      expect(took).not.toBe('still running');
      expect(server.child.exitCode).toBe(0);
      // The consoles closed with the server: told to the statistics while its database was still open.
      expect(await lastStates()).toEqual(agents.map(() => 'offline'));
      expect(server.output()).not.toMatch(/driver has already been destroyed|presence notice failed|event subscriber failed/);
      // Each socket heard "going away", so its client reconnects rather than reporting an error.
      for (const socket of sockets.filter((_, index) => index !== 1)) expect(await socket.closed()).toBe(1001);
    } finally {
      for (const socket of sockets) socket.close();
      await storage.close();
    }
  }, 120_000);
});
