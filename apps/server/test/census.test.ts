import type {
  CensusFlow,
  CensusOverview,
  CensusRatingComment,
  CensusServiceEvaluate,
  CensusServiceState,
  CensusServiceTalk,
  CensusTalk,
  Conversation,
  VisitorInit,
} from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, onlyId, uuidOf } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';
import type { TestSocket } from './sockets.js';

let server: TestServer;
let admin: string;
let adminUuid: string;
const sockets: TestSocket[] = [];

const SHENZHEN = '120.24.78.68';
const GOOGLE_DNS = '8.8.8.8';
const WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/** A visitor arriving from `referrer`, at `address` (through the trusted proxy), with a browser's user agent. */
async function arrive(referrer: string, address: string | null, userAgent: string): Promise<VisitorInit> {
  const headers: Record<string, string> = { 'user-agent': userAgent };
  if (address) headers['x-forwarded-for'] = address;
  const response = await server.post<VisitorInit>('/api/visitor/init', { url: 'https://shop.example/', referrer, lang: 'zh' }, { headers });
  expect(response.status).toBe(200);
  return response.body.data;
}

const census = <T>(path: string, token = admin) => server.get<T>(path, { token, lang: 'en' });

beforeAll(async () => {
  // Warnings are logged so the CSV test can see that nothing was answered twice.
  server = await startTestServer({ TRUST_PROXY: '127.0.0.1', SITE_TIMEZONE: 'Asia/Shanghai', LOG_LEVEL: 'warn' });
  admin = await server.login();
  adminUuid = await uuidOf(server, admin);
  sockets.push(await agentSocket(server, admin));

  // Two from Baidu in Shenzhen on Windows, one from Google abroad on an iPhone, one from Bing with a
  // formula for keyword, one typed in directly (a private address: no region).
  const baidu = await arrive('https://www.baidu.com/s?wd=在线客服', SHENZHEN, WINDOWS);
  await arrive('https://www.baidu.com/s?wd=在线客服', SHENZHEN, WINDOWS);
  await arrive('https://www.google.com/search?q=chat+tool', GOOGLE_DNS, IPHONE);
  await arrive('https://www.bing.com/search?q=%3D1%2B1', null, WINDOWS);
  await arrive('', null, IPHONE);

  // The first Baidu visitor talks to the administrator, who answers; the visitor rates it 4.
  const said = await server.post('/api/visitor/message', { YQToken: baidu.YQToken, msg: '你好', onlyID: onlyId() });
  expect(said.status).toBe(200);
  const answered = await server.post('/api/talk/send', { YQToken: baidu.id, msg: 'Hello!', onlyID: onlyId() }, { token: admin });
  expect(answered.status).toBe(200);
  expect((await server.post('/api/talk/end', { YQToken: baidu.id }, { token: admin })).status).toBe(200);
  expect((await server.post('/api/visitor/rate', { YQToken: baidu.YQToken, score: 4, comment: 'ok' })).status).toBe(200);
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await server.close();
});

describe('census access', () => {
  it('answers 401 without a token and 403 without seePermissions:statistics', async () => {
    const { token } = await createAgent(server, admin, { username: 'census-plain' });
    for (const path of [
      '/api/census/flow?dim=engine',
      '/api/census/talk?dim=area',
      '/api/census/service?kind=talk',
      '/api/census/overview',
    ]) {
      expect((await server.get(path)).status).toBe(401);
      const refused = await server.get(path, { token: token ?? '' });
      expect(refused.status).toBe(403);
      expect(refused.body.data).toBeNull();
    }
  });

  it('refuses an unknown dimension, a backwards range and a range over a year, naming the field', async () => {
    const dim = await census('/api/census/flow?dim=city');
    expect(dim.status).toBe(400);
    expect(dim.body.msg).toContain('dim');
    const backwards = await census('/api/census/talk?dim=engine&from=2024-03-02&to=2024-03-01');
    expect(backwards.status).toBe(400);
    expect(backwards.body.msg).toContain('from');
    const long = await census('/api/census/service?kind=state&from=2022-01-01&to=2024-01-01');
    expect(long.status).toBe(400);
    expect(long.body.msg).toContain('to');
  });
});

describe('GET /api/census/flow', () => {
  it('counts visitors, visits and conversations by search engine, keyword, area, platform and source', async () => {
    const names = async (dim: string) => {
      const response = await census<CensusFlow>(`/api/census/flow?dim=${dim}`);
      expect(response.status).toBe(200);
      return response.body.data.list.map((row) => [row.name, row.visitors, row.visits, row.conversations]);
    };
    expect(await names('engine')).toEqual([
      ['Baidu', 2, 2, 1],
      ['', 1, 1, 0],
      ['Bing', 1, 1, 0],
      ['Google', 1, 1, 0],
    ]);
    expect(await names('keyword')).toEqual([
      ['在线客服', 2, 2, 1],
      ['', 1, 1, 0],
      ['=1+1', 1, 1, 0],
      ['chat tool', 1, 1, 0],
    ]);
    expect(await names('area')).toEqual([
      ['', 2, 2, 0],
      ['广东省', 2, 2, 1],
      ['美国', 1, 1, 0],
    ]);
    expect(await names('platform')).toEqual([
      ['Windows', 3, 3, 1],
      ['iOS', 2, 2, 0],
    ]);
    expect(await names('source')).toEqual([
      ['www.baidu.com', 2, 2, 1],
      ['', 1, 1, 0],
      ['www.bing.com', 1, 1, 0],
      ['www.google.com', 1, 1, 0],
    ]);
  });

  it('gives a trend of every day of the range and the previous period beside', async () => {
    const response = await census<CensusFlow>('/api/census/flow?dim=engine');
    const { trend, totals, previous, period } = response.body.data;
    expect(period.timeZone).toBe('Asia/Shanghai');
    expect(trend).toHaveLength(7);
    expect(trend[6]).toEqual({ day: period.to, visitors: 5, visits: 5 });
    expect(trend.slice(0, 6).every((day) => day.visits === 0)).toBe(true);
    expect(totals).toEqual({ visitors: 5, visits: 5, conversations: 1 });
    expect(previous).toEqual({ visitors: 0, visits: 0, conversations: 0 });
  });

  it('counts a visit on the site day it happened: midnight in Shanghai is 16:00 UTC', async () => {
    const late = await arrive('https://www.sogou.com/web?query=夜', SHENZHEN, WINDOWS);
    const early = await arrive('https://www.sogou.com/web?query=晨', SHENZHEN, WINDOWS);
    const visitorOf = async (publicId: string) =>
      (await server.storage.db.selectFrom('visitors').select('id').where('public_id', '=', publicId).executeTakeFirstOrThrow()).id;
    const moveVisits = async (publicId: string, at: string) =>
      server.storage.db
        .updateTable('visits')
        .set({ created_at: at })
        .where('visitor_id', '=', await visitorOf(publicId))
        .execute();
    await moveVisits(late.id, '2024-03-01T15:59:59.999Z');
    await moveVisits(early.id, '2024-03-01T16:00:00.000Z');
    const response = await census<CensusFlow>('/api/census/flow?dim=keyword&from=2024-03-01&to=2024-03-02');
    expect(response.body.data.trend).toEqual([
      { day: '2024-03-01', visitors: 1, visits: 1 },
      { day: '2024-03-02', visitors: 1, visits: 1 },
    ]);
    const one = await census<CensusFlow>('/api/census/flow?dim=keyword&from=2024-03-02&to=2024-03-02');
    expect(one.body.data.list.map((row) => row.name)).toEqual(['晨']);
    expect(one.body.data.previous.visits).toBe(1);
  });

  it('answers an empty range with an empty list and a trend of zeros', async () => {
    const response = await census<CensusFlow>('/api/census/flow?dim=area&from=2020-01-01&to=2020-01-02');
    expect(response.status).toBe(200);
    expect(response.body.data.list).toEqual([]);
    expect(response.body.data.trend).toEqual([
      { day: '2020-01-01', visitors: 0, visits: 0 },
      { day: '2020-01-02', visitors: 0, visits: 0 },
    ]);
  });

  it('exports the list as CSV with a BOM, the header in the caller’s language, formulas neutralized', async () => {
    const response = await fetch(`${server.url}/api/census/flow?dim=keyword&format=csv`, {
      headers: { authorization: `Bearer ${admin}`, 'accept-language': 'en' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = new TextDecoder().decode(bytes.slice(3)).trim().split('\n');
    expect(lines).toEqual(['Name,Visitors,Visits,Conversations', '在线客服,2,2,1', ',1,1,0', "'=1+1,1,1,0", 'chat tool,1,1,0']);
  });
});

describe('GET /api/census/talk', () => {
  it('counts conversations, their messages and ratings by the visitor’s dimension', async () => {
    const response = await census<CensusTalk>('/api/census/talk?dim=engine');
    expect(response.status).toBe(200);
    expect(response.body.data.list).toEqual([{ name: 'Baidu', conversations: 1, messages: 2, rated: 1, averageScore: 4 }]);
    expect(response.body.data.trend.at(-1)).toEqual({ day: response.body.data.period.to, conversations: 1 });
    expect(response.body.data.totals).toEqual({ conversations: 1, messages: 2, rated: 1, averageScore: 4 });
    const area = await census<CensusTalk>('/api/census/talk?dim=area');
    expect(area.body.data.list.map((row) => row.name)).toEqual(['广东省']);
  });

  it('answers CSV in Chinese by default', async () => {
    const response = await fetch(`${server.url}/api/census/talk?dim=engine&format=csv`, { headers: { authorization: `Bearer ${admin}` } });
    const text = (await response.text()).replace(/^\uFEFF/, '').trim();
    expect(text.split('\n')).toEqual(['名称,对话数,消息数,评价数,平均评分', 'Baidu,1,2,1,4']);
  });
});

describe('GET /api/census/service', () => {
  it('kind=talk: each agent’s conversations, messages, median first response and duration', async () => {
    const response = await census<CensusServiceTalk>('/api/census/service?kind=talk');
    expect(response.status).toBe(200);
    const mine = response.body.data.list.find((row) => row.serviceID === adminUuid);
    expect(mine).toMatchObject({ nickname: 'admin', conversations: 1, messages: 2, transfers: 0 });
    expect(mine?.firstResponseMs).toEqual(expect.any(Number));
    expect(mine?.durationMs).toEqual(expect.any(Number));
    const others = response.body.data.list.filter((row) => row.serviceID !== adminUuid);
    expect(others.every((row) => row.conversations === 0 && row.firstResponseMs === null)).toBe(true);
  });

  it('kind=evaluate: ratings by score, per agent and overall', async () => {
    const response = await census<CensusServiceEvaluate>('/api/census/service?kind=evaluate');
    const mine = response.body.data.list.find((row) => row.serviceID === adminUuid);
    expect(mine).toMatchObject({ rated: 1, averageScore: 4, scores: { 1: 0, 2: 0, 3: 0, 4: 1, 5: 0 } });
    expect(response.body.data.overall).toEqual({ rated: 1, averageScore: 4, scores: { 1: 0, 2: 0, 3: 0, 4: 1, 5: 0 } });
  });

  it('kind=evaluate: the range’s latest comments, newest first, as the visitors wrote them, optionally one agent’s', async () => {
    const { token: raterToken } = await createAgent(server, admin, { username: 'census-rater' });
    const raterUuid = await uuidOf(server, raterToken ?? '');
    /** A conversation with the administrator, rated, then moved to `startedAt` (and to `serviceID`). */
    const rated = async (score: number, comment: string, startedAt: string, serviceID = adminUuid) => {
      const visitor = await arrive('', null, WINDOWS);
      expect((await server.post('/api/visitor/message', { YQToken: visitor.YQToken, msg: 'hi', onlyID: onlyId() })).status).toBe(200);
      expect((await server.post('/api/talk/send', { YQToken: visitor.id, msg: 'yes?', onlyID: onlyId() }, { token: admin })).status).toBe(
        200,
      );
      expect((await server.post('/api/talk/end', { YQToken: visitor.id }, { token: admin })).status).toBe(200);
      expect((await server.post('/api/visitor/rate', { YQToken: visitor.YQToken, score, comment })).status).toBe(200);
      const db = server.storage.db;
      const { id } = await db.selectFrom('visitors').select('id').where('public_id', '=', visitor.id).executeTakeFirstOrThrow();
      // Out of today, so the other figures of this file keep theirs.
      await db.updateTable('visits').set({ created_at: startedAt }).where('visitor_id', '=', id).execute();
      await db.updateTable('conversations').set({ started_at: startedAt, service_id: serviceID }).where('visitor_id', '=', id).execute();
    };
    const markup = '<img src=x onerror="alert(1)"> great';
    await rated(5, markup, '2024-05-01T02:00:00.000Z');
    await rated(3, '', '2024-05-01T03:00:00.000Z');
    await rated(2, '太慢了，等了十分钟', '2024-05-02T01:00:00.000Z', raterUuid);
    await rated(4, 'outside the range', '2024-04-30T01:00:00.000Z');

    const comments = async (query: string) => {
      const response = await census<CensusServiceEvaluate>(`/api/census/service?kind=evaluate&from=2024-05-01&to=2024-05-02${query}`);
      expect(response.status).toBe(200);
      return response.body.data;
    };
    const all = await comments('');
    expect(all.overall.rated).toBe(3);
    expect(all.comments.map((row) => [row.score, row.comment, row.agentNickname, row.serviceID, row.startedAt])).toEqual([
      [2, '太慢了，等了十分钟', 'census-rater', raterUuid, '2024-05-02T01:00:00.000Z'],
      [5, markup, 'admin', adminUuid, '2024-05-01T02:00:00.000Z'],
    ]);
    // Each names the conversation the history detail opens, with the visitor as the history shows them.
    for (const row of all.comments) {
      const detail = await census<{ conversation: Conversation }>(`/api/history/detail?id=${row.conversationId}`);
      expect(detail.status).toBe(200);
      expect(detail.body.data.conversation).toMatchObject({ score: row.score, comment: row.comment, nickname: row.visitorNickname });
    }
    const mine = await comments(`&serviceID=${adminUuid}`);
    expect(mine.comments.map((row: CensusRatingComment) => row.comment)).toEqual([markup]);
    expect(mine.overall.rated).toBe(3);
    expect((await comments(`&serviceID=${raterUuid}`)).comments.map((row) => row.score)).toEqual([2]);
    expect((await comments('&serviceID=nobody')).comments).toEqual([]);

    const empty = await census('/api/census/service?kind=evaluate&serviceID=');
    expect(empty.status).toBe(400);
    expect(empty.body.msg).toContain('serviceID');
  });

  it('kind=state: time online, hidden and offline, clipped to the range and to now', async () => {
    // Some time online passes before hiding: the state log is written with the server's clock.
    const started = Date.now();
    while (Date.now() - started < 30) await new Promise((resolve) => setImmediate(resolve));
    expect((await server.post('/api/index/state', { state: '1' }, { token: admin })).status).toBe(200);
    const response = await census<CensusServiceState>('/api/census/service?kind=state');
    const mine = response.body.data.list.find((row) => row.serviceID === adminUuid);
    expect(mine?.now).toBe('hidden');
    expect(mine?.onlineMs).toBeGreaterThan(0);
    expect(mine?.hiddenMs).toBeGreaterThanOrEqual(0);
    const plain = response.body.data.list.find((row) => row.nickname === 'census-plain');
    expect(plain).toMatchObject({ onlineMs: 0, hiddenMs: 0, now: 'offline' });
    expect((await server.post('/api/index/state', { state: '0' }, { token: admin })).status).toBe(200);
    const past = await census<CensusServiceState>('/api/census/service?kind=state&from=2020-01-01&to=2020-01-01');
    const before = past.body.data.list.find((row) => row.serviceID === adminUuid);
    expect(before).toMatchObject({ onlineMs: 0, hiddenMs: 0, offlineMs: 86_400_000 });
  });
});

describe('census CSV', () => {
  it('answers each download once: the file, and no warning of a second answer', async () => {
    const from = server.logs.length;
    for (const path of ['/api/census/flow?dim=engine', '/api/census/talk?dim=area', '/api/census/service?kind=evaluate']) {
      const response = await fetch(`${server.url}${path}&format=csv`, { headers: { authorization: `Bearer ${admin}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.csv"$/);
      expect([...new Uint8Array(await response.arrayBuffer()).slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    }
    // A second answer is noticed after the first went out; the next request is served after that.
    expect((await census('/api/census/overview')).status).toBe(200);
    expect(server.logs.slice(from).filter((line) => Number(line.level) >= 40)).toEqual([]);
  });
});

describe('GET /api/census/overview', () => {
  it('answers today’s and the period’s visitors, conversations, conversion and ratings, with agents online', async () => {
    const response = await census<CensusOverview>('/api/census/overview');
    expect(response.status).toBe(200);
    const { today, range, agentsOnline, agentsTotal, trend } = response.body.data;
    expect(today).toMatchObject({ visitors: 5, conversations: 1, conversion: 0.2, averageScore: 4 });
    expect(today.firstResponseMs).toEqual(expect.any(Number));
    expect(range.visitors).toBe(5);
    expect(agentsOnline).toBe(1);
    expect(agentsTotal).toBeGreaterThanOrEqual(2);
    expect(trend).toHaveLength(7);
  });
});
