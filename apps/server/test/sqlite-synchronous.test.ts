import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@parley/protocol';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { APP_ROOT, backends, startTestServer, type TestServer } from './harness.js';
import { buildOnce, spawnServer } from './processes.js';

/**
 * `synchronous` is a setting of the connection, not of the file: only the server's own connection can
 * tell which one it runs with, so it is asked, through the storage the test server was built on.
 */
async function synchronousOf(server: TestServer): Promise<number | undefined> {
  const { rows } = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(server.storage.db);
  return rows[0]?.synchronous;
}

/** SQLite's numbers for the pragma's values. */
const NORMAL = 1;
const FULL = 2;

describe.skipIf(backends.postgres)('SQLITE_SYNCHRONOUS', () => {
  let full: TestServer;
  let normal: TestServer;
  beforeAll(async () => {
    full = await startTestServer({ SQLITE_SYNCHRONOUS: 'full' });
    normal = await startTestServer();
  });
  afterAll(async () => {
    await full?.close();
    await normal?.close();
  });

  it('full: the server syncs every commit, and stores and acknowledges messages as before', async () => {
    expect(await synchronousOf(full)).toBe(FULL);
    const init = await full.post<{ YQToken: string }>('/api/visitor/init', { url: 'https://shop.example/' });
    const sent = await full.post<Message>('/api/visitor/message', {
      YQToken: init.body.data.YQToken,
      msg: 'durable',
      onlyID: 'sync-full-1',
    });
    expect(sent.status).toBe(200);
    const stored = await full.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${init.body.data.YQToken}&afterSeq=0`);
    // The visitor's own lines; the tips the server adds (no agent online) are not under test.
    const lines = stored.body.data.list.filter((message) => message.role === 'user');
    expect(lines.map((message) => message.onlyID)).toEqual(['sync-full-1']);
  });

  it('unset: NORMAL, as before the switch existed', async () => {
    expect(await synchronousOf(normal)).toBe(NORMAL);
  });
});

describe('a bad SQLITE_SYNCHRONOUS', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-sync-'));
  beforeAll(buildOnce, 180_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is read case-insensitively, and anything but normal or full is refused', () => {
    expect(loadConfig({}, APP_ROOT).sqliteSynchronous).toBe('normal');
    expect(loadConfig({ SQLITE_SYNCHRONOUS: 'FULL' }, APP_ROOT).sqliteSynchronous).toBe('full');
    expect(() => loadConfig({ SQLITE_SYNCHRONOUS: 'off' }, APP_ROOT)).toThrow(ConfigError);
  });

  it('stops the server at start with a message naming the variable and its values, and no stack', async () => {
    const failed = await spawnServer('apps/server/dist/main.js', dataDir, 'unused', { SQLITE_SYNCHRONOUS: 'sometimes' }).then(
      (server) => {
        void server.stop();
        throw new Error('the server started');
      },
      (error: Error) => error.message,
    );
    expect(failed).toMatch(/server exited with 1/);
    expect(failed).toMatch(/invalid configuration: SQLITE_SYNCHRONOUS: .*"normal".*"full"/);
    expect(failed).not.toMatch(/\n\s+at /);
  }, 60_000);
});
