import type { Conversation, ListData, VisitorRecord } from '@parley/protocol';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, EXACT_COUNT_UP_TO } from '../src/db/count.js';
import { startTestServer, type TestServer } from './harness.js';

// A list's total on a site of millions: PostgreSQL counts by reading every row, so past EXACT_COUNT_UP_TO
// it answers the planner's estimate and says so (`estimated`); SQLite, and every smaller list, count.

const VISITORS = EXACT_COUNT_UP_TO + 50;
let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  // Written as a migration or an import would, past the API: a hundred thousand arrivals one by one would
  // take minutes. Fifty of them came this year; every one is a web visitor.
  await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${VISITORS})
    insert into visitors (token_hash, public_id, name, phone, email, channel, state, online, unread, umsg, smsg, last_seq,
      ip, region, user_agent, platform, browser, device, referrer, engine, keyword, first_url, lang, created_at, last_seen_at)
    select 'h' || i, 'estimate-visitor-' || i, '', '', '', 'web', 'end', 0, 0, 0, 0, 0, '', '', '', '', '', '', '', '', '', '', 'zh',
      case when i > ${VISITORS - 50} then '2026-06-01T00:00:00.000Z' else '2020-01-01T00:00:00.000Z' end,
      '2020-01-01T00:00:00.000Z'
    from n`.execute(server.storage.db);
  // What autovacuum does on a live database after so many rows: the planner's statistics are brought up to date.
  if (server.storage.dialect === 'postgres') await sql`analyze visitors`.execute(server.storage.db);
}, 120_000);
afterAll(() => server.close());

const visitorList = async (query: string) => {
  const response = await server.get<ListData<VisitorRecord>>(`/api/user/getList?pageNo=1&pageSize=20${query}`, { token: admin });
  expect(response.status).toBe(200);
  return response.body.data;
};

describe('the total of a list of more than a hundred thousand', () => {
  it('is the estimate on PostgreSQL, and says so; exact on SQLite', async () => {
    const all = await visitorList('');
    expect(all.list).toHaveLength(20);
    if (server.storage.dialect === 'postgres') {
      expect(all.estimated).toBe(true);
      expect(all.total).toBeGreaterThan(EXACT_COUNT_UP_TO);
      // The planner's figure from fresh statistics: within a few percent of the truth.
      expect(Math.abs(all.total - VISITORS) / VISITORS).toBeLessThan(0.05);
    } else {
      expect(all.estimated).toBeUndefined();
      expect(all.total).toBe(VISITORS);
    }
  });

  it('is counted when the filters leave fewer, however many the table holds', async () => {
    const thisYear = await visitorList('&from=2026-01-01&to=2026-12-31');
    expect(thisYear).toMatchObject({ total: 50 });
    expect(thisYear.estimated).toBeUndefined();
    const none = await visitorList('&channel=officialAccount');
    expect(none).toMatchObject({ total: 0, list: [] });
    expect(none.estimated).toBeUndefined();
  });

  it('counts exactly up to the bound and estimates past it, for the history’s conversations as for any query', async () => {
    const { db, dialect } = server.storage;
    const visitors = db.selectFrom('visitors').where('visitors.created_at', '>=', '2026-01-01');
    expect(await countRows(db, dialect, visitors, 50)).toEqual({ total: 50, estimated: false });
    const past = await countRows(db, dialect, visitors, 49);
    if (dialect === 'postgres') {
      expect(past.estimated).toBe(true);
      expect(past.total).toBeGreaterThanOrEqual(50);
    } else expect(past).toEqual({ total: 50, estimated: false });
    const history = await server.get<ListData<Conversation>>('/api/history/getList?pageNo=1&pageSize=20', { token: admin });
    expect(history.body.data).toMatchObject({ total: 0, list: [] });
    expect(history.body.data.estimated).toBeUndefined();
  });
});
