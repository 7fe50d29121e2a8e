import type { Conversation, ConversationDetail } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, type TestVisitor, uuidOf, visitor } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';
import { visitorRow } from './rows.js';
import type { TestSocket } from './sockets.js';

type List = { list: Conversation[]; total: number };

let server: TestServer;
let admin: string;
let adminUuid: string;
/** Agents of a role without seeHistorical: they read only the conversations they took part in. */
let alice: string;
let bob: string;
let aliceUuid: string;
let bobUuid: string;
const sockets: TestSocket[] = [];

beforeAll(async () => {
  server = await startTestServer({ SITE_TIMEZONE: 'Pacific/Honolulu' });
  admin = await server.login();
  adminUuid = await uuidOf(server, admin);
  const role = await server.post('/api/role/doEdit', { name: 'Chat only', permissions: [] }, { token: admin });
  expect(role.status).toBe(200);
  alice = (await createAgent(server, admin, { username: 'alice', role: 'Chat only' })).token ?? '';
  bob = (await createAgent(server, admin, { username: 'bob', role: 'Chat only' })).token ?? '';
  aliceUuid = await uuidOf(server, alice);
  bobUuid = await uuidOf(server, bob);
  // Conversations go only to agents with a console open; onlyAvailable() picks which of them.
  for (const token of [admin, alice, bob]) sockets.push(await agentSocket(server, token));
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await server.close();
});

const list = (query: string, token = admin) => server.get<List>(`/api/history/getList?pageSize=100&${query}`, { token });
const idsOf = (response: { body: { data: List } }) => response.body.data.list.map((item) => item.id);

/** Only this agent is available: the next visitor who writes is theirs. */
async function onlyAvailable(token: string): Promise<void> {
  for (const other of [admin, alice, bob]) await server.post('/api/index/state', { state: other === token ? '0' : '1' }, { token: other });
}

async function conversationOf(v: TestVisitor): Promise<Conversation> {
  const found = (await list('')).body.data.list.find((item) => item.YQToken === v.id);
  if (!found) throw new Error('no conversation');
  return found;
}

it('tells the console the site time zone its days and times use', async () => {
  const info = await server.get<{ timezone: string }>('/api/userInfo', { token: alice });
  expect(info.body.data.timezone).toBe('Pacific/Honolulu');
});

describe('access to /api/history/*', () => {
  it('answers 401 without a token', async () => {
    expect((await server.get('/api/history/getList')).status).toBe(401);
    expect((await server.get('/api/history/detail?id=1')).status).toBe(401);
    const exported = await fetch(`${server.url}/api/history/export`);
    expect(exported.status).toBe(401);
  });
});

describe('conversations and who may read them', () => {
  let forAlice: TestVisitor;
  let forBob: TestVisitor;
  let transferred: TestVisitor;

  beforeAll(async () => {
    await onlyAvailable(alice);
    forAlice = await visitor(server);
    await forAlice.say('hello alice');
    await onlyAvailable(bob);
    forBob = await visitor(server);
    await forBob.say('hello bob');
    // Alice answers, then passes the conversation to Bob: she still took part in it.
    await onlyAvailable(alice);
    transferred = await visitor(server);
    await transferred.say('start with alice');
    expect(
      (await server.post('/api/talk/send', { YQToken: transferred.id, msg: 'alice here', onlyID: 'a-1' }, { token: alice })).status,
    ).toBe(200);
    expect((await server.post('/api/talk/transfer', { YQToken: transferred.id, serviceID: bobUuid }, { token: alice })).status).toBe(200);
    for (const v of [forAlice, forBob, transferred]) sockets.push(v.socket);
  });

  it('shows every conversation to holders of seeHistorical, with its agent', async () => {
    const all = await list('');
    expect(all.status).toBe(200);
    const mine = all.body.data.list.filter((item) => [forAlice.id, forBob.id, transferred.id].includes(item.YQToken));
    expect(mine.map((item) => [item.YQToken, item.agentNickname, item.serviceID])).toEqual([
      [transferred.id, 'bob', bobUuid],
      [forBob.id, 'bob', bobUuid],
      [forAlice.id, 'alice', aliceUuid],
    ]);
  });

  it('lists to an agent without seeHistorical only the conversations they took part in', async () => {
    const aliceSees = await list('', alice);
    expect(aliceSees.status).toBe(200);
    expect(aliceSees.body.data.list.map((item) => item.YQToken).sort()).toEqual([forAlice.id, transferred.id].sort());
    expect(aliceSees.body.data.total).toBe(2);
    const bobSees = await list('', bob);
    expect(bobSees.body.data.list.map((item) => item.YQToken).sort()).toEqual([forBob.id, transferred.id].sort());
    // A keyword finds in every conversation, but lists to them only theirs.
    const searched = await list('keyword=hello', alice);
    expect(searched.status).toBe(200);
    expect(searched.body.data.list.map((item) => item.YQToken)).toEqual([forAlice.id]);
    expect(searched.body.data.total).toBe(1);
    expect((await list('keyword=hello')).body.data.list.map((item) => item.YQToken)).toEqual([forBob.id, forAlice.id]);
  });

  it('answers the detail to a participant, 403 to another agent without seeHistorical, 404 when there is none', async () => {
    const ofAlice = await conversationOf(forAlice);
    const ofBob = await conversationOf(forBob);
    const handedOn = await conversationOf(transferred);
    expect((await server.get(`/api/history/detail?id=${ofAlice.id}`, { token: alice })).status).toBe(200);
    expect((await server.get(`/api/history/detail?id=${handedOn.id}`, { token: alice })).status).toBe(200);
    const refused = await server.get(`/api/history/detail?id=${ofBob.id}`, { token: alice });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe(403);
    expect((await server.get(`/api/history/detail?id=${ofBob.id}`, { token: admin })).status).toBe(200);
    expect((await server.get('/api/history/detail?id=999999', { token: admin })).status).toBe(404);
    expect((await server.get('/api/history/detail?id=abc', { token: admin })).status).toBe(400);
  });

  it('exports to an agent without seeHistorical only their conversations', async () => {
    const response = await fetch(`${server.url}/api/history/export`, { headers: { authorization: `Bearer ${alice}` } });
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).toContain(forAlice.id);
    expect(body).toContain(transferred.id);
    expect(body).not.toContain(forBob.id);
  });
});

describe('GET /api/history/detail', () => {
  it('answers the conversation, exactly its messages, and the visitor pages', async () => {
    await onlyAvailable(admin);
    const v = await visitor(server, 'https://shop.example/detail');
    sockets.push(v.socket);
    await server.post('/api/visitor/visit', { YQToken: v.credential, url: 'https://shop.example/cart', title: 'Cart' });
    await v.say('old question');
    await server.post('/api/talk/send', { YQToken: v.id, msg: 'old answer', onlyID: 'd-1' }, { token: admin });
    await server.post('/api/talk/end', { YQToken: v.id }, { token: admin });
    await server.post('/api/visitor/rate', { YQToken: v.credential, score: 5, comment: 'thanks' });
    await v.say('new question');
    await server.post('/api/talk/send', { YQToken: v.id, msg: 'new answer', onlyID: 'd-2' }, { token: admin });

    const conversations = (await list('')).body.data.list.filter((item) => item.YQToken === v.id);
    expect(conversations).toHaveLength(2);
    const [current, first] = conversations;
    expect(first).toMatchObject({ messages: 2, score: 5, comment: 'thanks', agentNickname: 'admin', serviceID: adminUuid });
    expect(current).toMatchObject({ messages: 2, score: null, endedAt: null });

    const old = await server.get<ConversationDetail>(`/api/history/detail?id=${first?.id}`, { token: admin });
    expect(old.status).toBe(200);
    expect(old.body.data.conversation).toEqual(first);
    expect(old.body.data.messages.filter((m) => m.role !== 'tip').map((m) => m.msg)).toEqual(['old question', 'old answer']);
    expect(old.body.data.messages.every((m) => m.YQToken === v.id)).toBe(true);
    expect(old.body.data.visits.map((visit) => visit.URL)).toEqual(['https://shop.example/cart', 'https://shop.example/detail']);
    const open = await server.get<ConversationDetail>(`/api/history/detail?id=${current?.id}`, { token: admin });
    expect(open.body.data.messages.filter((m) => m.role !== 'tip').map((m) => m.msg)).toEqual(['new question', 'new answer']);
  });

  it('measures the first response from the first visitor message to the first agent message after it', async () => {
    const v = await visitor(server);
    sockets.push(v.socket);
    const asked = await v.say('how long?');
    const answered = await server.post<{ time: string }>(
      '/api/talk/send',
      { YQToken: v.id, msg: 'not long', onlyID: 'r-1' },
      { token: admin },
    );
    const conversation = await conversationOf(v);
    expect(conversation.firstResponseMs).toBe(Date.parse(answered.body.data.time) - Date.parse(asked.time));
    const silent = await visitor(server);
    sockets.push(silent.socket);
    await silent.say('anyone?');
    expect((await conversationOf(silent)).firstResponseMs).toBeNull();
  });
});

describe('GET /api/history/getList filters', () => {
  let named: TestVisitor;
  let rated: TestVisitor;
  let official: TestVisitor;

  beforeAll(async () => {
    await onlyAvailable(admin);
    named = await visitor(server);
    await named.say('where is my parcel');
    await server.post('/api/user/doEdit', { YQToken: named.id, name: 'Theodora Vance' }, { token: admin });
    rated = await visitor(server);
    await rated.say('the blue kettle leaks');
    await server.post('/api/talk/end', { YQToken: rated.id }, { token: admin });
    await server.post('/api/visitor/rate', { YQToken: rated.credential, score: 2, comment: 'slow' });
    official = await visitor(server, 'https://shop.example/wx', { channel: 'officialAccount' });
    await official.say('from the official account');
    for (const v of [named, rated, official]) sockets.push(v.socket);
  });

  const tokensOf = (response: { body: { data: List } }) => response.body.data.list.map((item) => item.YQToken);

  it('finds a keyword in message text and in the visitor fields, literally', async () => {
    expect(tokensOf(await list('keyword=BLUE%20KETTLE'))).toEqual([rated.id]);
    expect(tokensOf(await list('keyword=theodora'))).toEqual([named.id]);
    expect(tokensOf(await list('keyword=parcel'))).toEqual([named.id]);
    expect((await list('keyword=%25')).body.data.total).toBe(0);
  });

  it('filters by agent, channel and rating', async () => {
    const byAdmin = await list(`serviceID=${adminUuid}`);
    expect(byAdmin.body.data.list.every((item) => item.serviceID === adminUuid)).toBe(true);
    expect(tokensOf(byAdmin)).toEqual(expect.arrayContaining([named.id, rated.id, official.id]));
    expect(tokensOf(await list(`serviceID=${bobUuid}`))).not.toContain(named.id);
    expect(tokensOf(await list('channel=officialAccount'))).toEqual([official.id]);
    expect(tokensOf(await list('score=2'))).toEqual([rated.id]);
    expect((await list('score=6')).status).toBe(400);
    expect((await list('serviceID=nobody')).status).toBe(400);
  });

  it('filters start days in the site time zone (Pacific/Honolulu)', async () => {
    const ids = [(await conversationOf(named)).id, (await conversationOf(rated)).id];
    // 23:30 on 2026-02-10 in Honolulu (09:30 UTC the next day), and 00:10 on 2026-02-10 there.
    await server.storage.db
      .updateTable('conversations')
      .set({ started_at: '2026-02-11T09:30:00.000Z' })
      .where('id', '=', ids[0] ?? 0)
      .execute();
    await server.storage.db
      .updateTable('conversations')
      .set({ started_at: '2026-02-10T10:10:00.000Z' })
      .where('id', '=', ids[1] ?? 0)
      .execute();
    expect(idsOf(await list('from=2026-02-10&to=2026-02-10'))).toEqual(ids);
    expect(idsOf(await list('from=2026-02-11&to=2026-02-11'))).toEqual([]);
    expect(idsOf(await list('from=2026-02-10T10:00:00Z&to=2026-02-10T11:00:00Z'))).toEqual([ids[1]]);
  });
});

describe('GET /api/history/export', () => {
  const exported = (query: string, lang: 'en' | 'zh' = 'en', token = admin) =>
    fetch(`${server.url}/api/history/export?${query}`, { headers: { authorization: `Bearer ${token}`, 'accept-language': lang } });

  it('answers CSV with a BOM, a header in the caller language, formula cells escaped, and the filters applied', async () => {
    await onlyAvailable(admin);
    const v = await visitor(server);
    sockets.push(v.socket);
    await v.say('export me');
    await server.post('/api/user/doEdit', { YQToken: v.id, name: '=HYPERLINK("http://evil.example")' }, { token: admin });
    await server.post('/api/talk/end', { YQToken: v.id }, { token: admin });
    await server.post('/api/visitor/rate', { YQToken: v.credential, score: 3, comment: '@SUM(A1:A2)' });

    const response = await exported('score=3');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="history-\d{4}-\d{2}-\d{2}\.csv"$/);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = new TextDecoder().decode(bytes.slice(3)).trim().split('\n');
    expect(lines[0]).toBe(
      'Conversation,Visitor,Visitor id,Channel,Agent,Started,Ended,Duration (s),Messages,First response (s),Rating,Comment,Region,Source,Search engine,Search keyword,Labels,Internal notes,User ID,Email,Phone,Attributes',
    );
    expect(lines).toHaveLength(2);
    const row = lines[1] ?? '';
    expect(row).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    expect(row).toContain(",'@SUM(A1:A2),");
    expect(row).toContain(v.id);
    expect(row).toMatch(/,\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},/);

    // text() decodes UTF-8 and drops the BOM.
    const zh = await (await exported('score=3', 'zh')).text();
    expect(zh.split('\n')[0]).toBe(
      '对话编号,访客,访客编号,渠道,客服,开始时间,结束时间,时长（秒）,消息数,首次响应（秒）,评分,评价内容,地区,来源,搜索引擎,搜索词,标签,内部备注,用户 ID,邮箱,电话,访客属性',
    );
    expect((await exported('score=9')).status).toBe(400);
  });
});

describe('GET /api/history/export of many conversations', () => {
  let big: TestServer;
  let token: string;
  beforeAll(async () => {
    big = await startTestServer();
    token = await big.login();
    const db = big.storage.db;
    const now = '2026-03-01T00:00:00.000Z';
    const bulkVisitor = (channel: string, n: number) =>
      visitorRow({
        token_hash: `hash-${channel}-${n}`.padEnd(64, '0'),
        public_id: `bulk${channel}${n}`.padEnd(22, 'x'),
        name: `Bulk ${channel}`,
        channel,
        created_at: now,
        last_seen_at: now,
      });
    const web = await db.insertInto('visitors').values(bulkVisitor('web', 1)).returning('id').executeTakeFirstOrThrow();
    const mini = await db.insertInto('visitors').values(bulkVisitor('miniProgram', 2)).returning('id').executeTakeFirstOrThrow();
    for (let start = 0; start < 2000; start += 250) {
      const rows = Array.from({ length: 250 }, (_, i) => {
        const n = start + i;
        // Runs of five share a start time, so the export's paging must order ties by id.
        const startedAt = new Date(Date.parse(now) + Math.floor(n / 5) * 60_000).toISOString();
        return {
          visitor_id: n % 4 === 0 ? mini.id : web.id,
          service_id: null,
          first_seq: 1,
          last_seq: 0,
          score: null,
          comment: `c${n}`,
          started_at: startedAt,
          ended_at: startedAt,
        };
      });
      await db.insertInto('conversations').values(rows).execute();
    }
  });
  afterAll(() => big.close());

  it('streams every row once, newest first, and applies the filters', async () => {
    const response = await fetch(`${big.url}/api/history/export`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    // Streamed: no length known in advance.
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const lines = (await response.text()).trim().split('\n').slice(1);
    expect(lines).toHaveLength(2000);
    const ids = lines.map((line) => Number(line.split(',')[0]));
    expect(new Set(ids).size).toBe(2000);
    const starts = lines.map((line) => line.split(',')[5] ?? '');
    expect([...starts].sort().reverse()).toEqual(starts);

    const filtered = await fetch(`${big.url}/api/history/export?channel=miniProgram`, { headers: { authorization: `Bearer ${token}` } });
    const miniLines = (await filtered.text()).trim().split('\n').slice(1);
    expect(miniLines).toHaveLength(500);
    expect(miniLines.every((line) => line.split(',')[3] === 'miniProgram')).toBe(true);
  });
});
