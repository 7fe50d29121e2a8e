import type { Conversation, VisitorRecord } from '@parley/protocol';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexedIds, type SearchIndex } from '../src/db/search.js';
import { SearchIndexer } from '../src/db/search-indexer.js';
import { KeywordSearch } from '../src/modules/history/search.js';
import { agentSocket, type TestVisitor, visitor } from './chat-harness.js';
import { migrateTo, startTestServer, type TestServer } from './harness.js';
import { visitorRow } from './rows.js';
import type { TestSocket } from './sockets.js';

// History and visitor keyword search through the databases' own indexes (migration 037): what a keyword
// finds is what "contains" found before, for Chinese, English, digits and punctuation, on both databases.

let server: TestServer;
let admin: string;
const sockets: TestSocket[] = [];
let refund: TestVisitor;
let parcel: TestVisitor;
let named: TestVisitor;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  sockets.push(await agentSocket(server, admin));
  refund = await visitor(server);
  await refund.say('我想申请退款，订单号 A-20231105');
  parcel = await visitor(server);
  await parcel.say('Where is my PARCEL? 谢谢 🙂');
  named = await visitor(server);
  await named.say('hello');
  const edited = await server.post(
    '/api/user/doEdit',
    { YQToken: named.id, name: '张伟', phone: '13800138000', email: 'Wei.Zhang@example.com' },
    { token: admin },
  );
  expect(edited.status).toBe(200);
  for (const v of [refund, parcel, named]) sockets.push(v.socket);
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await server.close();
});

const history = async (keyword: string) => {
  const response = await server.get<{ list: Conversation[]; total: number }>(
    `/api/history/getList?pageSize=100&keyword=${encodeURIComponent(keyword)}`,
    { token: admin },
  );
  expect(response.status).toBe(200);
  return response.body.data.list.map((item) => item.YQToken).sort();
};
const visitors = async (keyword: string) => {
  const response = await server.get<{ list: VisitorRecord[]; total: number }>(
    `/api/user/getList?pageSize=100&keyword=${encodeURIComponent(keyword)}`,
    { token: admin },
  );
  expect(response.status).toBe(200);
  return response.body.data.list.map((item) => item.YQToken).sort();
};
const sorted = (...ids: string[]) => [...ids].sort();

/** The rows the index alone names for a keyword, before the "contains" check. */
async function candidates(index: SearchIndex, keyword: string): Promise<number[]> {
  const found = await sql<{
    id: number;
  }>`select id from ${sql.table(index === 'message_search' ? 'messages' : 'visitors')} where id in ${indexedIds(server.storage.dialect, index, keyword)}`.execute(
    server.storage.db,
  );
  return found.rows.map((row) => Number(row.id)).sort((a, b) => a - b);
}
async function idOf(text: string): Promise<number> {
  const row = await server.storage.db.selectFrom('messages').select('id').where('msg', '=', text).executeTakeFirstOrThrow();
  return Number(row.id);
}

describe('keyword search', () => {
  it('finds Chinese words of one and two characters, and words across punctuation', async () => {
    expect(await history('退款')).toEqual([refund.id]);
    expect(await history('退')).toEqual([refund.id]);
    expect(await history('款，订单')).toEqual([refund.id]);
    expect(await history('谢谢')).toEqual([parcel.id]);
    expect(await history('退货')).toEqual([]);
  });

  it('finds English in any case, digits, an order number, an emoji; wildcards are literal', async () => {
    expect(await history('parcel')).toEqual([parcel.id]);
    expect(await history('Is My')).toEqual([parcel.id]);
    expect(await history('a-2023')).toEqual([refund.id]);
    expect(await history('1105')).toEqual([refund.id]);
    expect(await history('🙂')).toEqual([parcel.id]);
    expect(await history('%')).toEqual([]);
    expect(await history('_')).toEqual([]);
  });

  it('finds visitors by name, phone and email, in the history and in the visitor list', async () => {
    expect(await history('张伟')).toEqual([named.id]);
    expect(await history('0013800')).toEqual([named.id]);
    expect(await visitors('13800138000')).toEqual([named.id]);
    expect(await visitors('wei.zhang@')).toEqual([named.id]);
    expect(await visitors('伟')).toEqual([named.id]);
  });

  it('follows a visitor renamed: the new name finds them, the old one no longer does', async () => {
    expect((await server.post('/api/user/doEdit', { YQToken: named.id, name: '李娜' }, { token: admin })).status).toBe(200);
    expect(await visitors('李娜')).toEqual([named.id]);
    expect(await visitors('张伟')).toEqual([]);
    expect((await server.post('/api/user/doEdit', { YQToken: named.id, name: '张伟' }, { token: admin })).status).toBe(200);
  });

  it('holds a visitor only while there is something to search: a name given, then taken away', async () => {
    const quiet = await visitor(server);
    await quiet.say('只是看看');
    sockets.push(quiet.socket);
    const db = server.storage.db;
    const { id } = await db.selectFrom('visitors').select('id').where('public_id', '=', quiet.id).executeTakeFirstOrThrow();
    const key = sql.raw(server.storage.dialect === 'sqlite' ? 'rowid' : 'id');
    const held = async () =>
      Number((await sql<{ n: number }>`select count(*) as n from visitor_search where ${key} = ${id}`.execute(db)).rows[0]?.n);
    // On SQLite a new visitor is taken by the indexer a moment later: waited for, then left out.
    if (server.storage.dialect === 'sqlite')
      await expect
        .poll(async () =>
          Number((await sql<{ next: number }>`select next from search_backfill where name = 'visitor_search'`.execute(db)).rows[0]?.next),
        )
        .toBeGreaterThan(id);
    expect(await held()).toBe(0);
    // Attributes of none are nothing to search: "{}" finds no visitor, though every one of them has it.
    expect(await visitors('{}')).toEqual([]);
    expect((await server.post('/api/user/doEdit', { YQToken: quiet.id, name: '静静' }, { token: admin })).status).toBe(200);
    expect(await held()).toBe(1);
    expect(await visitors('静静')).toEqual([quiet.id]);
    expect(await history('静静')).toEqual([quiet.id]);
    expect((await server.post('/api/user/doEdit', { YQToken: quiet.id, name: '' }, { token: admin })).status).toBe(200);
    expect(await held()).toBe(0);
    expect(await visitors('静静')).toEqual([]);
  });

  it('holds in its index exactly the rows with every gram of the keyword, the same on both databases', async () => {
    const refundId = await idOf('我想申请退款，订单号 A-20231105');
    const parcelId = await idOf('Where is my PARCEL? 谢谢 🙂');
    // On SQLite new rows are indexed a moment after they are written (their searches look through them meanwhile).
    await expect.poll(() => candidates('message_search', '退款')).toEqual([refundId]);
    expect(await candidates('message_search', 'PARCEL')).toEqual([parcelId]);
    expect(await candidates('message_search', '🙂')).toEqual([parcelId]);
    // Every gram of "is pa" is in the text, which does not hold it: the index narrows, the check decides.
    expect(await candidates('message_search', 'is pa')).toEqual([parcelId]);
    expect(await history('is pa')).toEqual([]);
  });
});

describe("a keyword's list", () => {
  const ranked = async (keyword: string) => {
    const response = await server.get<{ list: Conversation[]; total: number; more?: boolean }>(
      `/api/history/getList?pageSize=20&keyword=${encodeURIComponent(keyword)}`,
      { token: admin },
    );
    expect(response.status).toBe(200);
    return response.body.data;
  };

  it('ranks conversations by their newest match, not by when they started', async () => {
    const first = await visitor(server);
    await first.say('排序词 第一次');
    const second = await visitor(server);
    await second.say('排序词 第二次');
    sockets.push(first.socket, second.socket);
    let found = await ranked('排序词');
    expect(found.list.map((row) => row.YQToken)).toEqual([second.id, first.id]);
    expect(found.total).toBe(2);
    expect(found.more).toBeUndefined();
    // The conversation that started first says it again: its newest match is now the newest.
    await first.say('又说了一次排序词');
    found = await ranked('排序词');
    expect(found.list.map((row) => row.YQToken)).toEqual([first.id, second.id]);
    // The list's other filters still hold.
    const none = await server.get<{ list: Conversation[]; total: number }>(
      `/api/history/getList?pageSize=20&score=1&keyword=${encodeURIComponent('排序词')}`,
      { token: admin },
    );
    expect(none.body.data).toEqual({ list: [], total: 0 });
  });

  it('counts up to its bound, then says "more", the best ones still first', async () => {
    const many: TestVisitor[] = [];
    for (let i = 0; i < 4; i += 1) {
      const talker = await visitor(server);
      await talker.say(`常见词 ${i}`);
      sockets.push(talker.socket);
      many.push(talker);
    }
    const search = new KeywordSearch(server.storage.db, server.storage.dialect, 2);
    const keepAll = async (ids: number[]) => ids;
    const found = await search.ranked('常见词', keepAll, 1);
    expect(found.total).toBe(2);
    expect(found.more).toBe(true);
    const publicIds = await server.storage.db
      .selectFrom('conversations')
      .innerJoin('visitors', 'visitors.id', 'conversations.visitor_id')
      .select(['conversations.id', 'visitors.public_id'])
      .where('conversations.id', 'in', found.ids)
      .execute();
    const byId = new Map(publicIds.map((row) => [row.id, row.public_id]));
    // The newest talker first, whatever the count stopped at.
    expect(byId.get(found.ids[0] as number)).toBe(many[3]?.id);
    // Below the bound, the count is exact.
    expect(await new KeywordSearch(server.storage.db, server.storage.dialect, 10).ranked('常见词', keepAll, 1)).toMatchObject({
      total: 4,
      more: false,
    });
  });
});

describe("a keyword's list of visitors' conversations", () => {
  it('ranks them by their newest message, whether it gathers the visitors or reads the messages', async () => {
    const db = server.storage.db;
    const caller = async (phone?: string) => {
      const talker = await visitor(server);
      sockets.push(talker.socket);
      if (phone) expect((await server.post('/api/user/doEdit', { YQToken: talker.id, phone }, { token: admin })).status).toBe(200);
      return talker;
    };
    const first = await caller('17700001');
    await first.say('你好');
    const second = await caller('17700002');
    await second.say('在吗');
    // Found by a message, not by a field.
    const writer = await caller();
    await writer.say('请回电 1770000 9');
    // Found by an agent's remark.
    const remarked = await caller();
    await remarked.say('好的');
    expect((await server.post('/api/user/doEdit', { YQToken: remarked.id, remark: '回访 1770000' }, { token: admin })).status).toBe(200);
    // The first speaks again: its conversation's newest message is now the newest of all.
    await first.say('还在等');
    // The newest message of all is a visitor's the keyword does not find: never listed.
    const bystander = await caller('18800001');
    await bystander.say('随便看看');
    const conversationOf = async (talker: TestVisitor) => {
      const row = await db
        .selectFrom('conversations')
        .innerJoin('visitors', 'visitors.id', 'conversations.visitor_id')
        .select('conversations.id')
        .where('visitors.public_id', '=', talker.id)
        .executeTakeFirstOrThrow();
      return row.id;
    };
    const ids = await Promise.all([first, remarked, writer, second].map(conversationOf));
    const keepAll = async (some: number[]) => some;
    // Gathering every visitor found (up to 1,000); counting their conversations first, then reading the
    // messages for the ranking alone when they pass the cap (a window's read costing nothing); reading the
    // messages (visitors gathered up to none).
    for (const [gatherUpTo, windowReadCost] of [
      [1000, Number.POSITIVE_INFINITY],
      [1000, 0],
      [0, 0],
    ]) {
      const search = (cap: number) => new KeywordSearch(db, server.storage.dialect, cap, gatherUpTo, windowReadCost);
      expect(await search(10).ranked('1770000', keepAll, 20)).toEqual({ ids, total: 4, more: false });
      // The bound: the best one first, whatever the count stopped at.
      const bounded = await search(1).ranked('1770000', keepAll, 1);
      expect(bounded).toMatchObject({ total: 1, more: true });
      expect(bounded.ids[0]).toBe(ids[0]);
      // Past the bound with every one wanted: the walks run to their ends, and find these four alone.
      expect(await search(1).ranked('1770000', keepAll, 20)).toEqual({ ids, total: 4, more: false });
      // The list's other filters: what `keep` turns away is neither listed nor counted.
      const without = ids[3] as number;
      expect(await search(10).ranked('1770000', async (some) => some.filter((id) => id !== without), 20)).toEqual({
        ids: ids.slice(0, 3),
        total: 3,
        more: false,
      });
      // What the filters turn away is not counted towards the bound either.
      const only = ids[1] as number;
      expect(await search(1).ranked('1770000', async (some) => some.filter((id) => id === only), 1)).toEqual({
        ids: [only],
        total: 1,
        more: false,
      });
    }
  });
});

describe("a keyword's visitor list", () => {
  it('walks the visitors found newest first, counts up to its bound, then says "more"', async () => {
    const db = server.storage.db;
    const phones: TestVisitor[] = [];
    for (let i = 0; i < 5; i += 1) {
      const caller = await visitor(server);
      sockets.push(caller.socket);
      phones.push(caller);
      // The second is found by an agent's remark, not by a field: found all the same, in its place by age.
      const edit = i === 1 ? { remark: '回电 1390000' } : { phone: `1390000${i}` };
      const edited = await server.post('/api/user/doEdit', { YQToken: caller.id, ...edit }, { token: admin });
      expect(edited.status).toBe(200);
    }
    const idsOf = async (publicIds: string[]) => {
      const rows = await db.selectFrom('visitors').select(['id', 'public_id']).where('public_id', 'in', publicIds).execute();
      return publicIds.map((publicId) => rows.find((row) => row.public_id === publicId)?.id);
    };
    const newestFirst = await idsOf(phones.map((caller) => caller.id).reverse());
    const keepAll = async (ids: number[]) => ids;

    const bounded = await new KeywordSearch(db, server.storage.dialect, 2).newestVisitors('1390000', keepAll, 1);
    expect(bounded.total).toBe(2);
    expect(bounded.more).toBe(true);
    expect(bounded.ids[0]).toBe(newestFirst[0]);
    // Below the bound the count is exact and the order newest first, the remarked visitor among them.
    const whole = await new KeywordSearch(db, server.storage.dialect, 10).newestVisitors('1390000', keepAll, 20);
    expect(whole).toEqual({ ids: newestFirst, total: 5, more: false });
    // The list's other filters still hold: what `keep` turns away is neither listed nor counted.
    const second = newestFirst[1] as number;
    const kept = await new KeywordSearch(db, server.storage.dialect, 10).newestVisitors(
      '1390000',
      async (ids) => ids.filter((id) => id !== second),
      20,
    );
    expect(kept).toEqual({ ids: newestFirst.filter((id) => id !== second), total: 4, more: false });

    // Over HTTP: the same five, newest first, and a page past the first.
    const listed = await server.get<{ list: VisitorRecord[]; total: number; more?: boolean }>(
      `/api/user/getList?pageSize=2&pageNo=2&keyword=1390000`,
      { token: admin },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.data.total).toBe(5);
    expect(listed.body.data.more).toBeUndefined();
    expect(listed.body.data.list.map((row) => row.YQToken)).toEqual(
      phones
        .map((caller) => caller.id)
        .reverse()
        .slice(2, 4),
    );
  });
});

describe('rows written before the index existed', () => {
  it('are found while the backfill has not reached them, and indexed by it newest first', async () => {
    const older = await visitor(server);
    await older.say('旧消息：保修期多久');
    sockets.push(older.socket);
    // The server's own indexer takes a message a moment after it is stored (PostgreSQL: from the pending
    // table): wait until it has taken them all, or its transaction could write a row back into the index
    // after the deletes below.
    const olderMessage = await idOf('旧消息：保修期多久');
    await expect.poll(() => candidates('message_search', '保修'), { timeout: 10_000 }).toEqual([olderMessage]);
    const pending = async () =>
      Number((await sql<{ n: number }>`select count(*) as n from message_search_pending`.execute(server.storage.db)).rows[0]?.n);
    if (server.storage.dialect === 'postgres') await expect.poll(pending, { timeout: 10_000 }).toBe(0);
    // As after the upgrade: nothing indexed, every row below the next id waiting for the backfill.
    await sql`delete from message_search`.execute(server.storage.db);
    await sql`delete from visitor_search`.execute(server.storage.db);
    for (const [index, source] of [
      ['message_search', 'messages'],
      ['visitor_search', 'visitors'],
    ] as const)
      await sql`update search_backfill set low = (select max(id) + 1 from ${sql.table(source)}), next = (select max(id) + 1 from ${sql.table(source)}) where name = ${index}`.execute(
        server.storage.db,
      );
    expect(await candidates('message_search', '保修')).toEqual([]);
    expect(await history('保修')).toEqual([older.id]);
    expect(await visitors('张伟')).toEqual([named.id]);
    // A name of two characters is decided by its one gram where the index holds the rows; the rows it
    // does not hold yet are still checked one by one, so no other visitor's conversation comes with it.
    expect(await history('张伟')).toEqual([named.id]);
    expect(await history('伟')).toEqual([named.id]);

    const logged: { message: string; details: object }[] = [];
    const log = {
      info: (details: object, message: string) => logged.push({ details, message }),
      error: (details: object, message: string) => logged.push({ details, message }),
    };
    const backfill = new SearchIndexer(
      server.storage.db,
      server.storage.dialect,
      log,
      { everyMs: 50, pauseMs: 0, reportEveryMs: 0 },
      { forward: 2, backfill: 2 },
    );
    backfill.start();
    try {
      await expect
        .poll(
          async () =>
            (await sql<{ low: number }>`select low from search_backfill`.execute(server.storage.db)).rows.map((row) => Number(row.low)),
          {
            timeout: 10_000,
          },
        )
        .toEqual([0, 0]);
    } finally {
      await backfill.stop();
    }
    expect(await candidates('message_search', '保修')).toEqual([olderMessage]);
    expect((await candidates('visitor_search', '张伟')).length).toBe(1);
    expect(await history('保修')).toEqual([older.id]);
    expect(await history('退款')).toEqual([refund.id]);
    expect(await history('张伟')).toEqual([named.id]);
    expect(await history('伟')).toEqual([named.id]);
    expect(logged.map((entry) => entry.message)).toContain('search index backfill done');
    expect(logged.some((entry) => entry.message === 'search index backfill' && 'done' in entry.details)).toBe(true);
  });
});

describe('the visitor index an earlier version filled', () => {
  it('is emptied by the upgrade and filled again, newest first, with the visitors there is something to search in', async () => {
    const at = new Date().toISOString();
    const upgraded = await startTestServer(
      {},
      {
        // As the version before migration 042 left it: every visitor indexed, those with nothing to search too.
        beforeMigrate: async (storage) => {
          await migrateTo(storage, '041_messages_newest_by_visitor');
          for (const [n, name] of ['', '罗秀英', '', '罗军', ''].entries()) {
            const id = 100 + n;
            await storage.db
              .insertInto('visitors')
              .values(
                visitorRow({
                  id,
                  token_hash: `earlier-${id}`,
                  public_id: `earlier${String(id).padStart(12, '0')}`,
                  name,
                  created_at: at,
                  last_seen_at: at,
                }),
              )
              .execute();
            // The text the earlier version indexed: every field, one per line, attributes of none included.
            const grams = sql`parley_grams(${`${name}\n\n\n\n{}`})`;
            if (storage.dialect === 'sqlite')
              await sql`insert into visitor_search (rowid, grams) values (${id}, ${grams})`.execute(storage.db);
            else await sql`insert into visitor_search (id, grams) values (${id}, ${grams}) on conflict (id) do nothing`.execute(storage.db);
          }
          await sql`update search_backfill set low = 0, next = 105 where name = 'visitor_search'`.execute(storage.db);
        },
      },
    );
    try {
      const db = upgraded.storage.db;
      const key = sql.raw(upgraded.storage.dialect === 'sqlite' ? 'rowid' : 'id');
      const held = async () =>
        (await sql<{ id: number }>`select ${key} as id from visitor_search order by ${key}`.execute(db)).rows.map((row) => Number(row.id));
      // The server's indexer takes the visitors again below the mark the upgrade set.
      await expect
        .poll(
          async () =>
            Number((await sql<{ low: number }>`select low from search_backfill where name = 'visitor_search'`.execute(db)).rows[0]?.low),
          {
            timeout: 10_000,
          },
        )
        .toBe(0);
      expect(await held()).toEqual([101, 103]);
      const token = await upgraded.login();
      const found = await upgraded.get<{ list: VisitorRecord[] }>(`/api/user/getList?pageSize=100&keyword=${encodeURIComponent('罗')}`, {
        token,
      });
      expect(found.body.data.list.map((row) => row.YQToken).sort()).toEqual(['earlier000000000101', 'earlier000000000103']);
    } finally {
      await upgraded.close();
    }
  });
});

describe('erasure', () => {
  it('takes an erased visitor’s messages and fields out of the index', async () => {
    const gone = await visitor(server);
    await gone.say('请删除我的数据 erase-me-now');
    sockets.push(gone.socket);
    const id = await idOf('请删除我的数据 erase-me-now');
    await expect.poll(() => candidates('message_search', 'erase-me')).toEqual([id]);
    expect((await server.post('/api/user/doDelete', { ids: [gone.id] }, { token: admin })).status).toBe(200);
    expect(await candidates('message_search', 'erase-me')).toEqual([]);
    expect(await history('erase-me')).toEqual(sorted());
  });
});
