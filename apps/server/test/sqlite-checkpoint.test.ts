import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, startTestServer, type TestServer } from './harness.js';
import { waitFor } from './waiting.js';

/**
 * SQLite's write-ahead log is copied back into the database file by a thread of its own, not by the
 * commit that fills it (a stall on the event loop). Pages reach the database file only through a
 * checkpoint: the file growing while the server's own connection never checkpoints shows the thread's work.
 */
describe.skipIf(backends.postgres)('the SQLite checkpoint thread', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ RATE_LIMITS: 'visitorMessage.address=1000000/10,visitorMessage.token=1000000/10' });
  });
  afterAll(() => server?.close());

  const fileSize = () => statSync(join(server.config.dataDir, 'parley.db')).size;

  it('leaves the commits alone and copies the log into the database file by itself', async () => {
    const { rows } = await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(server.storage.db);
    expect(rows[0]?.wal_autocheckpoint).toBe(0);
    const before = fileSize();
    const init = await server.post<{ YQToken: string }>('/api/visitor/init', { url: 'https://shop.example/' });
    const long = 'a long line of a chat, '.repeat(80);
    for (let index = 0; index < 300; index += 1) {
      const sent = await server.post('/api/visitor/message', {
        YQToken: init.body.data.YQToken,
        msg: `${index} ${long}`,
        onlyID: `cp-${index}`,
      });
      expect(sent.status).toBe(200);
    }
    // About 550 KB of messages: well over a hundred pages that only a checkpoint writes into the file.
    await waitFor(() => fileSize() > before + 256 * 1024, 10_000, 'the database file to take the log in');
  });
});

/**
 * The log starts over only when a write begins with all of it copied: under writes that never pause the
 * thread's copy never catches up by itself, and the log grew for as long as the load lasted.
 */
describe.skipIf(backends.postgres)('the SQLite write-ahead log under writes that never pause', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ SQLITE_CHECKPOINT_MS: '20', SQLITE_WAL_LIMIT_MB: '1' });
  });
  afterAll(() => server?.close());

  const wal = () => join(server.config.dataDir, 'parley.db-wal');
  /** The log header's checkpoint sequence number, which SQLite counts up each time the log starts over. */
  const startedOver = () => {
    const header = Buffer.alloc(16);
    const fd = openSync(wal(), 'r');
    try {
      readSync(fd, header, 0, 16, 0);
    } finally {
      closeSync(fd);
    }
    return header.readUInt32BE(12);
  };

  it('starts over once past its limit, instead of growing with everything written', async () => {
    await sql`CREATE TABLE stream (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`.execute(server.storage.db);
    const before = startedOver();
    const body = 'x'.repeat(3000);
    let written = 0;
    // Rows of 3 KB, each a commit of its own, the event loop turning between them as it does between two
    // messages of a busy server, until the log has started over five times: some 30 MB on a quiet machine,
    // more where the checkpoint thread gets less of the CPU. Without the writer's catching up it never
    // starts over, and 120 MB go by.
    for (let row = 0; row < 40_000 && (row % 500 !== 0 || startedOver() - before < 5); row += 1) {
      await sql`INSERT INTO stream (body) VALUES (${body})`.execute(server.storage.db);
      written += body.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(written).toBeGreaterThan(1024 * 1024);
    expect(startedOver() - before).toBeGreaterThanOrEqual(5);
  });
});
