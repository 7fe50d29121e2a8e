import type { CensusServiceTalk, VisitorInit } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidOf } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';

// The agents' medians over a range sum closed months' value counts from the monthly rollup
// (census_month_values) instead of every day's. A month of conversations is read once while it lies ahead
// of the clock (counted live from the raw tables, exact to the millisecond) and once closed (from the
// rollup): the medians must agree at the stated precision, first response to the second, length to ten
// seconds, and every other figure exactly.

const DAY_MS = 86_400_000;
const ZONE = 'Asia/Shanghai';
let server: TestServer;
let admin: string;
let clock = Date.now();

/** A month well before the real one, so that "now" can be put before it and back after it. */
const start = new Date();
const month = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() - 3, 1)).toISOString().slice(0, 7);
const monthFirst = `${month}-01`;
const monthLast = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);

const talk = async (from: string, to: string) => {
  const response = await server.get<CensusServiceTalk>(`/api/census/service?kind=talk&from=${from}&to=${to}`, { token: admin, lang: 'en' });
  expect(response.status).toBe(200);
  return response.body.data.list.filter((row) => row.conversations > 0);
};

/** Noon in the site's zone on `day` of the month, plus `ms`. */
const at = (day: number, ms = 0) => new Date(Date.parse(`${month}-${String(day).padStart(2, '0')}T04:00:00Z`) + ms).toISOString();

/** The median the way a closed range keeps it: of the values rounded to `step` ms. */
function roundedMedian(values: number[], step: number): number {
  const sorted = values.map((value) => Math.round(value / step) * (step / 1000)).sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const seconds = sorted.length % 2 ? (sorted[Math.floor(middle)] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  return Math.round(seconds * 1000);
}

function exactMedian(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 ? (sorted[Math.floor(middle)] ?? 0) : Math.round(((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2);
}

// Per agent: first responses and lengths (ms) of conversations spread over the month's days.
const ADMIN_FIRST = [1_200, 4_700, 2_600, 9_400, 3_100];
const ADMIN_LENGTH = [61_000, 125_000, 34_000, 300_000, 94_000];
const OTHER_FIRST = [800, 2_300, 15_000, 4_100];
const OTHER_LENGTH = [44_000, 12_000, 610_000, 76_000];

let adminUuid: string;
let otherUuid: string;
let visitor: VisitorInit;
let lastConversation = 0;

beforeAll(async () => {
  server = await startTestServer({ SITE_TIMEZONE: ZONE }, { now: () => clock });
  admin = await server.login();
  adminUuid = await uuidOf(server, admin);
  const other = await createAgent(server, admin, { username: 'census-months' });
  otherUuid = await uuidOf(server, other.token ?? '');
  const init = await server.post<VisitorInit>('/api/visitor/init', { url: 'https://shop.example/', referrer: '', lang: 'en' });
  expect(init.status).toBe(200);
  visitor = init.body.data;
  const stored = await server.storage.db.selectFrom('visitors').select('id').where('public_id', '=', visitor.id).executeTakeFirstOrThrow();

  // Past conversations cannot be had over HTTP (messages are stored at the real time): they are written
  // as the chat would have left them.
  // The visitor's latest conversation (the one a rating lands on) is the other agent's last.
  const rows = [
    // Unanswered and unassigned: counted nowhere in the agents' medians.
    { agent: null, first: null, length: 20_000, day: 9 },
    ...ADMIN_FIRST.map((first, index) => ({ agent: adminUuid, first, length: ADMIN_LENGTH[index] ?? 0, day: 2 + index * 6 })),
    ...OTHER_FIRST.map((first, index) => ({ agent: otherUuid, first, length: OTHER_LENGTH[index] ?? 0, day: 5 + index * 7 })),
  ];
  for (const [index, row] of rows.entries()) {
    const inserted = await server.storage.db
      .insertInto('conversations')
      .values({
        visitor_id: stored.id,
        service_id: row.agent,
        first_seq: index * 10 + 1,
        last_seq: index * 10 + 4,
        started_at: at(row.day),
        ended_at: at(row.day, row.length),
        messages: 4,
        first_response_ms: row.first,
        comment: '',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (row.agent === otherUuid) lastConversation = Number(inserted.id);
  }
});
afterAll(async () => {
  await server.close();
});

describe('the agents’ medians over closed months', () => {
  it('answers a closed month from the monthly rollup as the raw tables answer it live, at the stated precision', async () => {
    // The clock in the month before: the whole month lies ahead and is counted live, to the millisecond.
    clock = Date.parse(`${monthFirst}T04:00:00Z`) - 20 * DAY_MS;
    const live = await talk(monthFirst, monthLast);
    const liveOf = (uuid: string) => live.find((row) => row.serviceID === uuid);
    expect(liveOf(adminUuid)).toMatchObject({ conversations: 5, messages: 20 });
    expect(Math.abs((liveOf(adminUuid)?.firstResponseMs ?? 0) - exactMedian(ADMIN_FIRST))).toBeLessThanOrEqual(1);
    expect(Math.abs((liveOf(otherUuid)?.durationMs ?? 0) - exactMedian(OTHER_LENGTH))).toBeLessThanOrEqual(1);
    const summed = async () =>
      (await server.storage.db.selectFrom('census_months').select('month').where('zone', '=', ZONE).where('month', '=', month).execute())
        .length;
    expect(await summed()).toBe(0);

    // Back to now: the month is closed, summed once into the monthly rollup and answered from there.
    clock = Date.now();
    const closed = await talk(monthFirst, monthLast);
    expect(await summed()).toBe(1);
    expect(closed.map((row) => row.serviceID)).toEqual(live.map((row) => row.serviceID));
    for (const row of closed) {
      const before = live.find((found) => found.serviceID === row.serviceID);
      if (!before) throw new Error(`no live row for ${row.serviceID}`);
      expect({ ...row, firstResponseMs: 0, durationMs: 0 }).toEqual({ ...before, firstResponseMs: 0, durationMs: 0 });
      expect(Math.abs((row.firstResponseMs ?? 0) - (before.firstResponseMs ?? 0))).toBeLessThanOrEqual(500 + 1);
      expect(Math.abs((row.durationMs ?? 0) - (before.durationMs ?? 0))).toBeLessThanOrEqual(5_000 + 1);
    }
    const closedOf = (uuid: string) => closed.find((row) => row.serviceID === uuid);
    expect(closedOf(adminUuid)).toMatchObject({
      firstResponseMs: roundedMedian(ADMIN_FIRST, 1_000),
      durationMs: roundedMedian(ADMIN_LENGTH, 10_000),
    });
    expect(closedOf(otherUuid)).toMatchObject({
      firstResponseMs: roundedMedian(OTHER_FIRST, 1_000),
      durationMs: roundedMedian(OTHER_LENGTH, 10_000),
    });

    // A range with partial months at both ends (read day by day) around the whole one answers the same.
    const wider = await talk(
      new Date(Date.parse(monthFirst) - 12 * DAY_MS).toISOString().slice(0, 10),
      new Date(clock).toISOString().slice(0, 10),
    );
    expect(wider).toEqual(closed);
  });

  it('drops a closed month when a late event touches one of its days, and sums it again', async () => {
    clock = Date.now();
    // A late first response and two late messages, as the chat records them, and the visitor's rating of that conversation:
    // the rating drops the conversation's day, and with it the month.
    await server.storage.db
      .updateTable('conversations')
      .set({ first_response_ms: 40_000, messages: 6 })
      .where('id', '=', lastConversation)
      .execute();
    expect((await server.post('/api/visitor/rate', { YQToken: visitor.YQToken, score: 5 })).status).toBe(200);
    const expected = roundedMedian([...OTHER_FIRST.slice(0, -1), 40_000], 1_000);
    await expect
      .poll(async () => (await talk(monthFirst, monthLast)).find((row) => row.serviceID === otherUuid))
      .toMatchObject({ conversations: 4, messages: 18, firstResponseMs: expected });
    const months = await server.storage.db.selectFrom('census_months').select('month').where('month', '=', month).execute();
    expect(months).toHaveLength(1);
  });
});
