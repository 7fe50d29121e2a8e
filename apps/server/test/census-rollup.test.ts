import type { CensusFlow, CensusOverview, CensusServiceTalk, CensusTalk, VisitorInit } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildCensusDays } from '../src/modules/census/rebuild.js';
import { agentSocket, onlyId } from './chat-harness.js';
import { configure, startTestServer, type TestServer } from './harness.js';
import type { TestSocket } from './sockets.js';

// A closed day's statistics come from the daily rollup (census_days), today's from the raw tables. The
// same day is read while it is today (counted live), then with the clock a day on (from the rollup),
// after a late message on it, and after a rebuild: the answers must not tell the two apart.

const DAY_MS = 86_400_000;
let server: TestServer;
let admin: string;
let shift = 0;
let day: string;
const sockets: TestSocket[] = [];

const census = <T>(path: string) => server.get<T>(path, { token: admin, lang: 'en' });

async function arrive(referrer: string): Promise<VisitorInit> {
  const response = await server.post<VisitorInit>('/api/visitor/init', { url: 'https://shop.example/', referrer, lang: 'zh' });
  expect(response.status).toBe(200);
  return response.body.data;
}

/** The figures of `day` as every call that sums days answers them (the overview's own "today" left out). */
async function figures() {
  const range = `from=${day}&to=${day}`;
  const flow = await census<CensusFlow>(`/api/census/flow?dim=engine&${range}`);
  const talk = await census<CensusTalk>(`/api/census/talk?dim=keyword&${range}`);
  const overview = await census<CensusOverview>(`/api/census/overview?${range}`);
  for (const response of [flow, talk, overview]) expect(response.status).toBe(200);
  const { range: overviewRange, previous, trend } = overview.body.data;
  // A closed day keeps its first responses to the second (medians do not add up over days): compared so.
  const toSecond = <T extends { firstResponseMs: number | null }>(figure: T): T => ({
    ...figure,
    firstResponseMs: figure.firstResponseMs === null ? null : Math.round(figure.firstResponseMs / 1000) * 1000,
  });
  return {
    flow: flow.body.data,
    talk: talk.body.data,
    overview: { range: toSecond(overviewRange), previous: toSecond(previous), trend: trend.map(toSecond) },
  };
}

async function rolledRows(): Promise<number> {
  const rows = await server.storage.db.selectFrom('census_days').select('day').where('day', '=', day).execute();
  return rows.length;
}

let baidu: VisitorInit;

/**
 * The clock is moved a day on while a conversation is open: its auto close (30 minutes by default) would be
 * due, end it, and the next message would open a conversation today. These chats must go on over the day,
 * so auto close is off; the timers poll every 10 ms, so that a timer that still fired would always show.
 */
const TIMERS = { TIMER_POLL_MS: '10' };
const autoCloseOff = (on: TestServer, token: string) => configure(on, token, 'windowSetting', { autoCloseMinutes: 0 });

beforeAll(async () => {
  server = await startTestServer({ SITE_TIMEZONE: 'Asia/Shanghai', ...TIMERS }, { now: () => Date.now() + shift });
  admin = await server.login();
  await autoCloseOff(server, admin);
  sockets.push(await agentSocket(server, admin));
  baidu = await arrive('https://www.baidu.com/s?wd=客服');
  await arrive('https://www.bing.com/search?q=chat');
  await arrive('');
  expect((await server.post('/api/visitor/message', { YQToken: baidu.YQToken, msg: '你好', onlyID: onlyId() })).status).toBe(200);
  const answered = await server.post('/api/talk/send', { YQToken: baidu.id, msg: 'Hello!', onlyID: onlyId() }, { token: admin });
  expect(answered.status).toBe(200);
  day = (await census<CensusOverview>('/api/census/overview')).body.data.period.to;
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await server.close();
});

describe('the statistics’ daily rollup', () => {
  it('answers a closed day from the rollup as the raw tables did while it was today, and again after a late message and a rebuild', async () => {
    // Today: counted live, nothing kept. A live answer's rows and totals are read side by side while the
    // messages are still being written, so the wait is for both to have them.
    const agentRow = (messages: number) => ({ name: '客服', conversations: 1, messages, rated: 0, averageScore: null });
    await expect.poll(async () => (await figures()).talk).toMatchObject({ totals: { conversations: 1, messages: 2 }, list: [agentRow(2)] });
    const today = await figures();
    expect(today.flow.totals).toEqual({ visitors: 3, visits: 3, conversations: 1 });
    expect(await rolledRows()).toBe(0);

    // A day on, the same day is closed: it is counted once into the rollup and answered from there.
    shift = DAY_MS;
    const closed = await figures();
    expect(await rolledRows()).toBeGreaterThan(0);
    expect(closed).toEqual(today);

    // The visitor writes again in the conversation begun that day: the day is counted again.
    expect((await server.post('/api/visitor/message', { YQToken: baidu.YQToken, msg: '还在吗', onlyID: onlyId() })).status).toBe(200);
    await expect.poll(async () => (await figures()).talk).toMatchObject({ totals: { messages: 3 }, list: [agentRow(3)] });
    const late = await figures();
    expect(late.talk.list).toEqual([agentRow(3)]);
    expect(late.flow).toEqual(today.flow);

    // A rebuild from the raw tables gives the same answers.
    await rebuildCensusDays(server.storage, 'Asia/Shanghai', Date.now() + shift);
    expect(await rolledRows()).toBeGreaterThan(0);
    expect(await figures()).toEqual(late);
  });
});

describe('a chat over midnight', () => {
  // Its own server: the site day is moved on while the conversation goes on, and its statements are listened to.
  let overnight: TestServer;
  let token: string;
  let at = 0;
  let statements: string[] = [];

  beforeAll(async () => {
    overnight = await startTestServer(
      { SITE_TIMEZONE: 'Asia/Shanghai', ...TIMERS },
      { now: () => Date.now() + at, onStatement: (sql) => statements.push(sql) },
    );
    token = await overnight.login();
    await autoCloseOff(overnight, token);
    sockets.push(await agentSocket(overnight, token));
  });
  afterAll(() => overnight.close());

  it('drops the day it began on once, not for every message, and its rollup keeps the live count after each read', async () => {
    const v = (await overnight.post<VisitorInit>('/api/visitor/init', { url: 'https://shop.example/', referrer: '', lang: 'zh' })).body
      .data;
    const say = async (msg: string) =>
      expect((await overnight.post('/api/visitor/message', { YQToken: v.YQToken, msg, onlyID: onlyId() })).status).toBe(200);
    const messagesOn = async (first: string) => {
      const talk = await overnight.get<CensusTalk>(`/api/census/talk?dim=keyword&from=${first}&to=${first}`, { token, lang: 'en' });
      expect(talk.status).toBe(200);
      return talk.body.data.totals.messages;
    };
    const kept = async (first: string) =>
      (await overnight.storage.db.selectFrom('census_days').select('day').where('day', '=', first).execute()).length;
    /** The statements touching the statistics' tables that one visitor message costs. */
    const censusCost = async (msg: string) => {
      statements = [];
      await say(msg);
      return statements.filter((sql) => /census_|started_at/i.test(sql)).length;
    };

    await say('before midnight');
    const began = (await overnight.get<CensusOverview>('/api/census/overview', { token })).body.data.period.to;
    expect(await messagesOn(began)).toBe(1);

    // Past midnight the day is closed: counted into the rollup once read.
    at = DAY_MS;
    expect(await messagesOn(began)).toBe(1);
    expect(await kept(began)).toBeGreaterThan(0);

    // The first message after it drops the day; the next ones cost the statistics nothing.
    expect(await censusCost('after midnight 1')).toBeGreaterThan(0);
    expect(await kept(began)).toBe(0);
    expect(await censusCost('after midnight 2')).toBe(0);
    expect(await censusCost('after midnight 3')).toBe(0);
    expect(await messagesOn(began)).toBe(4);
    expect(await kept(began)).toBeGreaterThan(0);

    // Counted again, the day is dropped again by the next message, once.
    expect(await censusCost('after midnight 4')).toBeGreaterThan(0);
    expect(await censusCost('after midnight 5')).toBe(0);
    expect(await messagesOn(began)).toBe(6);
    expect(await censusCost('after midnight 6')).toBeGreaterThan(0);
    expect(await messagesOn(began)).toBe(7);

    // Ended after its day was counted again: the end (a tip, no message) drops the day as well, so the
    // agent's figures for that day learn the conversation's length.
    const lengths = async () => {
      const service = await overnight.get<CensusServiceTalk>(`/api/census/service?kind=talk&from=${began}&to=${began}`, {
        token,
        lang: 'en',
      });
      expect(service.status).toBe(200);
      return service.body.data.list.map((row) => row.durationMs);
    };
    expect(await lengths()).toEqual([null]);
    expect(await kept(began)).toBeGreaterThan(0);
    expect((await overnight.post('/api/talk/end', { YQToken: v.id }, { token })).status).toBe(200);
    expect(await kept(began)).toBe(0);
    expect((await lengths())[0]).toEqual(expect.any(Number));
  });
});
