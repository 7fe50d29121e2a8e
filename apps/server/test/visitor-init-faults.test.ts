import type { VisitorInit } from '@parley/protocol';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

/**
 * A busy or failing database answers some statement of a widget's init with an error, and the init is
 * answered 503; the widget asks again. What it must never do is store a visitor and not hand its credential
 * back: the widget's next try makes another one, and the first is a visitor nobody can ever reach.
 *
 * Each of the init's statements fails in turn, as a lost connection fails it (the server answers 503 for
 * that). Transaction control is left alone: a COMMIT whose answer is lost leaves the outcome unknown to the
 * server itself, and a BEGIN failed after it ran would leave the connection inside a transaction.
 */
describe("a new visitor's init when one of its statements fails", () => {
  let server: TestServer;
  let armed = false;
  let failAt = 0;
  let statements = 0;
  const failing = (text: string) => {
    if (!armed || /^\s*(begin|commit|rollback|savepoint|release)/i.test(text)) return;
    statements += 1;
    if (statements === failAt) throw new Error('Connection terminated unexpectedly');
  };

  beforeAll(async () => {
    server = await startTestServer({}, { onStatement: (text) => failing(text) });
  });
  afterAll(() => server.close());

  const count = async (table: 'visitors' | 'visits', visitorId?: number) => {
    const query =
      visitorId === undefined
        ? sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`
        : sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where visitor_id = ${visitorId}`;
    return Number((await query.execute(server.storage.db)).rows[0]?.n);
  };

  /** An init with the statement `at` of it failing (0: none), and what it left behind. */
  const initFailing = async (at: number) => {
    const before = await count('visitors');
    statements = 0;
    failAt = at;
    armed = true;
    const answer = await server.post<VisitorInit>('/api/visitor/init', { url: 'https://shop.example/', title: 'Shop', lang: 'en' });
    armed = false;
    return { answer, made: (await count('visitors')) - before, ran: statements };
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
