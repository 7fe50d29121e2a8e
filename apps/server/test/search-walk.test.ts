import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CandidateWalk } from '../src/db/search.js';
import { visitor } from './chat-harness.js';
import { startTestServer, type TestServer } from './harness.js';
import { waitFor } from './waiting.js';

// The walk a keyword's list takes down the messages, newest first (`db/search.ts`). On PostgreSQL it reads
// the newest rows in order while the keyword is common, and leaves a rare one to the GIN index: either way
// every message holding the keyword comes once, newest first, and none is missed where the two meet.

const MESSAGES = 3000;
let server: TestServer;
let statements: string[] = [];

beforeAll(async () => {
  server = await startTestServer({}, { onStatement: (text) => statements.push(text) });
  const v = await visitor(server);
  await v.say('hello');
  v.socket.close();
  const { id } = await server.storage.db.selectFrom('visitors').select('id').where('public_id', '=', v.id).executeTakeFirstOrThrow();
  // A long history written at once: one message in ten holds a common word, three hold a rare one.
  await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${MESSAGES})
    insert into messages (visitor_id, seq, only_id, role, type, msg, nickname, service_id, withdrawn, created_at)
    select ${id}, 100 + i, 'walk-' || i, 'user', 'text',
      case when i % 10 = 0 then '常见 question ' || i when i in (17, 1234, 2901) then 'a rare 稀有词 ' || i else 'filler ' || i end,
      'V', null, 0, '2026-01-01T00:00:00.000Z'
    from n`.execute(server.storage.db);
  // New rows are indexed a moment later (the walk would hand over every row not yet indexed): waited for.
  const top = await sql<{ id: number }>`select max(id) as id from messages`.execute(server.storage.db);
  const indexed = async () =>
    server.storage.dialect === 'sqlite'
      ? Number(
          (await sql<{ next: number }>`select next from search_backfill where name = 'message_search'`.execute(server.storage.db)).rows[0]
            ?.next,
        ) > Number(top.rows[0]?.id)
      : Number((await sql<{ n: number }>`select count(*) as n from message_search_pending`.execute(server.storage.db)).rows[0]?.n) === 0;
  await waitFor(indexed, 10_000, 'the new messages indexed');
});
afterAll(() => server.close());

/** Every message containing the keyword, newest first, read the slow way. */
async function truth(keyword: string): Promise<number[]> {
  const rows = await sql<{ id: number }>`select id from messages where msg like ${`%${keyword}%`} order by id desc`.execute(
    server.storage.db,
  );
  return rows.rows.map((row) => Number(row.id));
}

/**
 * The whole walk for the keyword, a few at a time, and the statements it ran. Its rows are candidates,
 * each still to be checked: every one comes once, newest first.
 */
async function walk(keyword: string, step = 7) {
  const walker = new CandidateWalk(server.storage.db, server.storage.dialect, 'message_search', keyword, { expected: 50, window: 100 });
  const ids: number[] = [];
  statements = [];
  for (;;) {
    const found = await walker.next(step);
    if (found.length === 0) break;
    ids.push(...found);
  }
  expect(ids).toEqual([...new Set(ids)].sort((a, b) => b - a));
  return { ids, statements: [...statements] };
}

describe('the walk down the messages', () => {
  it('gives a common word’s every message once, newest first, reading in order on PostgreSQL', async () => {
    const expected = await truth('常见');
    expect(expected).toHaveLength(MESSAGES / 10);
    const { ids, statements: ran } = await walk('常见');
    expect(ids).toEqual(expected);
    if (server.storage.dialect === 'postgres') {
      expect(ran.some((text) => text.includes('like'))).toBe(true);
      // The first 50 came from a few windows: the index was never worth asking.
      expect(ran.filter((text) => text.includes('grams @>'))).toEqual([]);
    }
  });

  it('gives a rare word’s every message once, newest first, the index taking over on PostgreSQL', async () => {
    const expected = await truth('稀有词');
    expect(expected).toHaveLength(3);
    const { ids, statements: ran } = await walk('稀有词');
    expect(ids).toEqual(expected);
    if (server.storage.dialect === 'postgres') {
      expect(ran.some((text) => text.includes('grams @>'))).toBe(true);
      // It stopped reading in order long before the bottom: a few windows, not thirty.
      expect(ran.filter((text) => text.includes(' like ')).length).toBeLessThan(5);
    }
  });

  it('asks the index once when it answers fewer than asked: it holds no more', async () => {
    const { ids, statements: ran } = await walk('稀有词', 1000);
    expect(ids).toEqual(await truth('稀有词'));
    expect(ran.filter((text) => text.includes('grams @>') || text.includes(' match '))).toHaveLength(1);
  });

  it('finds nothing for a word no message holds, and ends', async () => {
    expect((await walk('量子纠缠')).ids).toEqual([]);
  });
});
