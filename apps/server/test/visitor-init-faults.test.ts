import { randomBytes } from 'node:crypto';
import type { VisitorInit } from '@parley/protocol';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';
import { sign, WeChatDouble } from './wechat-double.js';

/**
 * A busy or failing database answers some statement of a widget's init with an error, and the init is
 * answered 503; the widget asks again. What it must never do is store a visitor and not hand its credential
 * back: the widget's next try makes another one, and the first is a visitor nobody can ever reach.
 *
 * Each of the init's statements fails in turn, as a lost connection fails it (the server answers 503 for
 * that). Transaction control is left alone: a COMMIT whose answer is lost leaves the outcome unknown to the
 * server itself, and a BEGIN failed after it ran would leave the connection inside a transaction.
 */
function statementFaults() {
  let armed = false;
  let failAt = 0;
  let seen = 0;
  return {
    /** The storage's statement listener. */
    listener(text: string) {
      if (!armed || /^\s*(begin|commit|rollback|savepoint|release)/i.test(text)) return;
      seen += 1;
      if (seen === failAt) throw new Error('Connection terminated unexpectedly');
    },
    /** `work` with its statement `at` failing (0: none), and how many statements it ran. */
    async during<T>(at: number, work: () => Promise<T>): Promise<{ result: T; ran: number }> {
      seen = 0;
      failAt = at;
      armed = true;
      try {
        return { result: await work(), ran: seen };
      } finally {
        armed = false;
      }
    },
  };
}

const countOf = async (server: TestServer, query: ReturnType<typeof sql<{ n: number }>>) =>
  Number((await query.execute(server.storage.db)).rows[0]?.n);

describe("a new visitor's init when one of its statements fails", () => {
  let server: TestServer;
  const faults = statementFaults();

  beforeAll(async () => {
    server = await startTestServer({}, { onStatement: faults.listener });
  });
  afterAll(() => server.close());

  const count = (table: 'visitors' | 'visits', visitorId?: number) =>
    countOf(
      server,
      visitorId === undefined
        ? sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`
        : sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where visitor_id = ${visitorId}`,
    );

  /** An init with the statement `at` of it failing (0: none), and what it left behind. */
  const initFailing = async (at: number) => {
    const before = await count('visitors');
    const { result: answer, ran } = await faults.during(at, () =>
      server.post<VisitorInit>('/api/visitor/init', { url: 'https://shop.example/', title: 'Shop', lang: 'en' }),
    );
    return { answer, made: (await count('visitors')) - before, ran };
  };

  it('stores a visitor only when its answer carries the credential, with its first visit', async () => {
    const { answer: whole, ran } = await initFailing(0);
    expect(whole.status).toBe(200);
    expect(ran).toBeGreaterThan(2);

    const statuses = new Set<number>();
    for (let at = 1; at <= ran + 1; at += 1) {
      const { answer, made } = await initFailing(at);
      statuses.add(answer.status);
      if (answer.status === 200) {
        expect(made, `statement ${at} failed, the init answered 200`).toBe(1);
        const credential = answer.body.data.YQToken;
        const messages = await server.get(`/api/visitor/messages?YQToken=${encodeURIComponent(credential)}`);
        expect(messages.status).toBe(200);
        const row = await sql<{ id: number }>`select id from visitors where public_id = ${answer.body.data.id}`.execute(server.storage.db);
        expect(await count('visits', row.rows[0]?.id)).toBe(1);
      } else {
        expect(answer.status, `statement ${at} failed: ${answer.body.msg}`).toBe(503);
        expect(made, `statement ${at} failed, the init answered 503 and stored a visitor`).toBe(0);
      }
    }
    // The failures reached the init (each of its statements failed once), and the last try ran whole.
    expect([...statuses].sort()).toEqual([200, 503]);
  });
});

describe("a WeChat user's first push when one of its statements fails", () => {
  const TOKEN = 'wechat-token-1';
  let double: WeChatDouble;
  let server: TestServer;
  const faults = statementFaults();

  beforeAll(async () => {
    double = await WeChatDouble.start();
    server = await startTestServer({ WECHAT_API_BASE: double.url, WECHAT_RETRY_MS: '100' }, { onStatement: faults.listener });
    const admin = await server.login();
    const officialAccount = {
      enabled: true,
      appId: 'wx5823bf96d3bd56c7',
      appSecret: 'app-secret-1',
      token: TOKEN,
      aesKey: randomBytes(32).toString('base64').slice(0, 43),
    };
    expect((await server.post('/api/settings/weChatSetting', { officialAccount }, { token: admin })).status).toBe(200);
  });
  afterAll(async () => {
    await server.close();
    await double.close();
  });

  const push = (body: string) => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = String(Math.floor(Math.random() * 1e9));
    const query = new URLSearchParams({ signature: sign(TOKEN, timestamp, nonce), timestamp, nonce });
    return fetch(`${server.url}/wechat/officialAccount?${query}`, { method: 'POST', headers: { 'content-type': 'text/xml' }, body });
  };
  const subscribe = (openid: string) =>
    `<xml><ToUserName><![CDATA[gh_account]]></ToUserName><FromUserName><![CDATA[${openid}]]></FromUserName><CreateTime>${Math.floor(Date.now() / 1000)}</CreateTime><MsgType><![CDATA[event]]></MsgType><Event><![CDATA[subscribe]]></Event></xml>`;
  /** Visitors of the channel that no openid leads to: nobody can ever write to them or as them. */
  const unreachable = () =>
    countOf(
      server,
      sql<{ n: number }>`select count(*) as n from visitors v where v.channel = 'officialAccount'
        and not exists (select 1 from wechat_users w where w.visitor_id = v.id)`,
    );

  it('leaves no visitor without its openid, and the push made again does what the failed one did not', async () => {
    const whole = await faults.during(0, () => push(subscribe(`o-${randomBytes(6).toString('hex')}`)));
    expect(whole.result.status).toBe(200);
    expect(whole.ran).toBeGreaterThan(3);

    let failed = 0;
    for (let at = 1; at <= whole.ran + 1; at += 1) {
      const openid = `o-${randomBytes(6).toString('hex')}`;
      const body = subscribe(openid);
      const first = await faults.during(at, () => push(body));
      expect(await unreachable(), `statement ${at} failed`).toBe(0);
      if (first.result.status !== 200) {
        failed += 1;
        // WeChat pushes again what it was not answered `success` for.
        expect((await push(body)).status, `statement ${at} failed, then the push again`).toBe(200);
      }
      const subscribed = await sql<{ visits: number }>`select (select count(*) from visits s where s.visitor_id = w.visitor_id
          and s.url = 'wechat://event/subscribe') as visits from wechat_users w where w.openid = ${openid}`.execute(server.storage.db);
      // One visitor for the openid, its subscription recorded: once, or twice where the statement that
      // recorded it failed after it ran (its outcome unknown, the push is done again rather than lost).
      expect(subscribed.rows, `statement ${at} failed: one visitor for the openid`).toHaveLength(1);
      expect(Number(subscribed.rows[0]?.visits), `statement ${at} failed: the subscription recorded`).toBeGreaterThanOrEqual(1);
    }
    expect(failed).toBeGreaterThan(2);
  });
});
