import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentPresenceStore } from '../src/realtime/presence.js';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('agent presence after a database outage', () => {
  it('puts right the rows whose writes failed while the database was away', async () => {
    const { db } = server.storage;
    const errors: unknown[] = [];
    const store = new AgentPresenceStore(db, (error) => errors.push(error), 50);
    const rowsOfStore = async () =>
      (await db.selectFrom('agent_presence').select('agent_uuid').where('node_id', '=', store.nodeId).orderBy('agent_uuid').execute()).map(
        (row) => row.agent_uuid,
      );
    try {
      await store.connected('agent-here');
      expect(await rowsOfStore()).toEqual(['agent-here']);
      // What failed writes leave: the row of an agent who is here went missing (its insert failed), and
      // the row of an agent who left stayed (its delete failed).
      await db.deleteFrom('agent_presence').where('node_id', '=', store.nodeId).execute();
      await db
        .insertInto('agent_presence')
        .values({ agent_uuid: 'agent-gone', node_id: store.nodeId, seen_at: new Date().toISOString() })
        .execute();

      const deadline = Date.now() + 5000;
      let rows = await rowsOfStore();
      while (JSON.stringify(rows) !== JSON.stringify(['agent-here']) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        rows = await rowsOfStore();
      }
      expect(rows).toEqual(['agent-here']);
      expect(errors).toEqual([]);
    } finally {
      await store.stop();
    }
  });
});
