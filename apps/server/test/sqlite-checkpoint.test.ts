import { statSync } from 'node:fs';
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
