import type { Conversation } from '@parley/protocol';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CandidateWalk, candidateIds, forwardStep, indexedIds, pendingStep } from '../src/db/search.js';
import { agentSocket, visitor } from './chat-harness.js';
import { backends, startTestServer, type TestServer } from './harness.js';
import type { TestSocket } from './sockets.js';

// A new message is indexed by the search indexer a moment after it is stored, not in the transaction that
// stores it (`db/search.ts`); a search finds it all the same from the moment it is acknowledged. On
// PostgreSQL its id waits in `message_search_pending` meanwhile (migration 043).

let server: TestServer;
let admin: string;
const sockets: TestSocket[] = [];

beforeAll(async () => {
  // The indexer runs once at the start, then not for a minute: the test indexes when it says so.
  server = await startTestServer({ SEARCH_INDEX_MS: '60000' });
  admin = await server.login();
  sockets.push(await agentSocket(server, admin));
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await server.close();
});

const history = async (keyword: string) => {
  const response = await server.get<{ list: Conversation[] }>(`/api/history/getList?pageSize=100&keyword=${encodeURIComponent(keyword)}`, {
    token: admin,
  });
  expect(response.status).toBe(200);
  return response.body.data.list.map((item) => item.YQToken);
};
/** The messages the index itself names for the keyword. */
async function indexed(keyword: string): Promise<number[]> {
  const found = await sql<{
    id: number;
  }>`select id from messages where id in ${indexedIds(server.storage.dialect, 'message_search', keyword)}`.execute(server.storage.db);
  return found.rows.map((row) => Number(row.id));
}
async function pending(): Promise<number[]> {
  if (server.storage.dialect === 'sqlite') return [];
  const rows = await sql<{ id: number }>`select id from message_search_pending order by id`.execute(server.storage.db);
  return rows.rows.map((row) => Number(row.id));
}
/** What the server's indexer does at its next look. */
async function indexNewRows(): Promise<void> {
  if (server.storage.dialect === 'sqlite') while ((await forwardStep(server.storage.db, 'message_search')) > 0) {}
  else while ((await pendingStep(server.storage.db)) > 0) {}
}

describe('a message the indexer has not taken yet', () => {
  it('is found from the moment it is stored, and by the index once the indexer took it', async () => {
    const asking = await visitor(server);
    sockets.push(asking.socket);
    await asking.say('尚未索引的消息 pending-word');
    const { id } = await server.storage.db
      .selectFrom('messages')
      .select('id')
      .where('msg', '=', '尚未索引的消息 pending-word')
      .executeTakeFirstOrThrow();
    expect(await indexed('pending-word')).toEqual([]);
    if (server.storage.dialect === 'postgres') expect(await pending()).toContain(Number(id));
    expect(await history('pending-word')).toEqual([asking.id]);
    // A keyword of two characters without case is decided by its gram where the index holds the rows; the
    // rows it does not hold yet are checked one by one, so the other visitor's conversation does not come.
    const other = await visitor(server);
    sockets.push(other.socket);
    await other.say('完全不同的话');
    expect(await history('索引')).toEqual([asking.id]);

    await indexNewRows();
    expect(await indexed('pending-word')).toEqual([Number(id)]);
    expect(await pending()).toEqual([]);
    expect(await history('pending-word')).toEqual([asking.id]);
    expect(await history('索引')).toEqual([asking.id]);
  });
});

describe.runIf(backends.postgres)('PostgreSQL: processes indexing side by side', () => {
  it('take each pending message once, and leave none', async () => {
    const db = server.storage.db;
    const holder = await visitor(server);
    sockets.push(holder.socket);
    await holder.say('first');
    await indexNewRows();
    const { id } = await db.selectFrom('visitors').select('id').where('public_id', '=', holder.id).executeTakeFirstOrThrow();
    await sql`insert into messages (visitor_id, seq, only_id, role, type, msg, nickname, service_id, withdrawn, created_at)
      select ${id}, 100 + i, 'side-' || i, 'user', 'text', 'side by side ' || i, 'V', null, 0, '2026-01-01T00:00:00.000Z'
      from generate_series(1, 300) as i`.execute(db);
    expect(await pending()).toHaveLength(300);
    const indexer = async () => {
      let taken = 0;
      for (let step = await pendingStep(db, 7); step > 0; step = await pendingStep(db, 7)) taken += step;
      return taken;
    };
    const [one, two] = await Promise.all([indexer(), indexer()]);
    expect((one ?? 0) + (two ?? 0)).toBe(300);
    expect(await pending()).toEqual([]);
    const held = await sql<{ n: number }>`select count(*) as n from message_search
      where id in (select id from messages where only_id like 'side-%')`.execute(db);
    expect(Number(held.rows[0]?.n)).toBe(300);
    expect(await indexed('by side 123')).toHaveLength(1);
    // The indexer makes the grams in the process: the same sets as the database's own function.
    const differing = await sql<{ n: number }>`select count(*) as n from message_search s join messages m on m.id = s.id
      where not (s.grams @> parley_grams(m.msg) and s.grams <@ parley_grams(m.msg))`.execute(db);
    expect(Number(differing.rows[0]?.n)).toBe(0);
  });

  it('find a message one of them still holds, below messages another one indexed', async () => {
    const db = server.storage.db;
    const holder = await visitor(server);
    sockets.push(holder.socket);
    await holder.say('a rare 罕见词 held back');
    const { id: visitorId } = await db.selectFrom('visitors').select('id').where('public_id', '=', holder.id).executeTakeFirstOrThrow();
    await sql`insert into messages (visitor_id, seq, only_id, role, type, msg, nickname, service_id, withdrawn, created_at)
      select ${visitorId}, 100 + i, 'after-' || i, 'user', 'text', 'filler ' || i, 'V', null, 0, '2026-01-01T00:00:00.000Z'
      from generate_series(1, 200) as i`.execute(db);
    const { id } = await db.selectFrom('messages').select('id').where('msg', '=', 'a rare 罕见词 held back').executeTakeFirstOrThrow();
    // One process holds the rare message in a step not yet committed while another indexes those after it.
    await db.transaction().execute(async (holding) => {
      await sql`select id from message_search_pending where id = ${id} for update`.execute(holding);
      while ((await pendingStep(db, 50)) > 0) {}
      expect(await pending()).toEqual([Number(id)]);
      // The walk reads a few of the newest rows, then leaves the rare word to the index: the pending one
      // is read on its own first.
      const walk = new CandidateWalk(db, 'postgres', 'message_search', '罕见词', { expected: 50, window: 100 });
      const walked: number[] = [];
      for (let ids = await walk.next(10); ids.length > 0; ids = await walk.next(10)) walked.push(...ids);
      expect(walked).toContain(Number(id));
      const candidates = await sql<{
        id: number;
      }>`select id from messages where id in ${candidateIds('postgres', 'message_search', '罕见词')}`.execute(db);
      expect(candidates.rows.map((row) => Number(row.id))).toContain(Number(id));
    });
    expect(await history('罕见词')).toEqual([holder.id]);
  });
});
