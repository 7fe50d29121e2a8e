import type { Message } from '@parley/protocol';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationRepository } from '../src/modules/conversations/repository.js';
import { agentSocket, framesOf, onlyId, type TestVisitor, visitor } from './chat-harness.js';
import { backends, configure, startTestServer, type TestServer } from './harness.js';
import type { TestSocket } from './sockets.js';

/**
 * What one message costs the database once its conversation is under way: every statement the server
 * runs (transaction control and savepoints included) between the send and its acknowledgement, which
 * follows the last listener of 'message.stored'. Sent one at a time, so each message is a batch of its
 * own (the group commit's worst case); under load neighbours share BEGIN and COMMIT.
 */
let statements: string[] = [];
let counting = false;

let server: TestServer;
let admin: string;
let agent: TestSocket;

beforeAll(async () => {
  // The timers' poll and the search indexer's look (which takes a batch of new messages, whatever their
  // number, off the message's path) are the background statements; slowed down, they stay out of the
  // counts. The benchmark sends faster than a visitor may: the visitor limits are lifted for it only.
  const quiet = { TIMER_POLL_MS: '60000', SEARCH_INDEX_MS: '60000', WECHAT_POLL_MS: '60000', WEBHOOK_POLL_MS: '60000' };
  const unlimited = { RATE_LIMITS: 'visitorMessage.address=1000000/10,visitorMessage.token=1000000/10' };
  // Each process also refreshes its rows of who is online and whose console is visible every 10 s, on a
  // clock of its own: a busy machine's ten messages can span one, and it is no message's cost.
  const processRows = /\b(agent_presence|push_visible)\b/;
  server = await startTestServer(process.env.HOT_PATH_BENCH ? { ...quiet, ...unlimited } : quiet, {
    onStatement: (sql) => counting && !processRows.test(sql) && statements.push(sql),
  });
  admin = await server.login();
  agent = await agentSocket(server, admin);
});
afterAll(async () => {
  agent.close();
  await server.close();
});

async function timers(on: boolean): Promise<void> {
  const text = on ? 'timed text' : '';
  await configure(server, admin, 'autoAnswer', {
    idle: { minutes: on ? 5 : 0, text },
    agentSilent: { minutes: on ? 5 : 0, text },
    keywords: [],
  });
  await configure(server, admin, 'windowSetting', { autoCloseMinutes: on ? 30 : 0 });
}

/** Sends one 8100 on the socket and waits for its acknowledgement. */
async function sendOver(socket: TestSocket, data: Record<string, unknown>): Promise<Message> {
  const acks = framesOf(socket, '8101').length;
  socket.send({ code: '8100', data: { onlyID: onlyId(), ...data } });
  const answer = await socket.until(() => framesOf(socket, '8101')[acks] ?? framesOf(socket, '8102')[0]);
  expect(answer).toMatchObject({ code: '8101' });
  return answer.data as Message;
}

interface Cost {
  statements: number;
  /** Writes outside the message's own transaction: each one a commit (a WAL write) of its own. */
  writesAfter: number;
  /** Every statement counted: a failed assertion shows them, so a run that fails says which was too many. */
  listing: string;
}

/** Statements and transactions per message over `count` messages sent one after another. */
async function costOf(count: number, send: (index: number) => Promise<unknown>): Promise<Cost> {
  statements = [];
  counting = true;
  for (let index = 0; index < count; index += 1) await send(index);
  counting = false;
  let inside = false;
  let writesAfter = 0;
  for (const sql of statements) {
    if (/^begin/i.test(sql)) inside = true;
    else if (/^commit/i.test(sql)) inside = false;
    else if (!inside && /^(insert|update|delete)/i.test(sql)) writesAfter += 1;
  }
  return { statements: statements.length / count, writesAfter: writesAfter / count, listing: statements.join('\n') };
}

/** A visitor in a conversation the administrator holds, past its first (conversation-opening) message. */
async function inConversation(): Promise<TestVisitor> {
  const v = await visitor(server);
  await sendOver(v.socket, { msg: 'opening' });
  await sendOver(agent, { YQToken: v.id, msg: 'hello' });
  return v;
}

describe('the message hot path', () => {
  it('costs a visitor message 5 statements, all in its own transaction (on PostgreSQL one statement by itself), while the timed answers are off', async () => {
    await timers(false);
    const v = await inConversation();
    const cost = await costOf(10, (index) => sendOver(v.socket, { msg: `visitor ${index}` }));
    console.info('visitor message, timers off', { statements: cost.statements, writesAfter: cost.writesAfter });
    expect(cost.statements, cost.listing).toBeLessThanOrEqual(5);
    expect(cost.writesAfter, cost.listing).toBeLessThanOrEqual(0);
    v.socket.close();
  });

  it('costs a visitor message one timer statement more while every timed answer is on', async () => {
    await timers(true);
    const v = await inConversation();
    const cost = await costOf(10, (index) => sendOver(v.socket, { msg: `visitor ${index}` }));
    console.info('visitor message, timers on', { statements: cost.statements, writesAfter: cost.writesAfter });
    expect(cost.statements, cost.listing).toBeLessThanOrEqual(6);
    expect(cost.writesAfter, cost.listing).toBeLessThanOrEqual(1);
    v.socket.close();
  });

  it('costs an agent message 6 statements, one of them a timer write, while every timed answer is on', async () => {
    await timers(true);
    const v = await inConversation();
    const cost = await costOf(10, (index) => sendOver(agent, { YQToken: v.id, msg: `agent ${index}` }));
    console.info('agent message, timers on', { statements: cost.statements, writesAfter: cost.writesAfter });
    expect(cost.statements, cost.listing).toBeLessThanOrEqual(6);
    expect(cost.writesAfter, cost.listing).toBeLessThanOrEqual(1);
    v.socket.close();
  });

  it('costs an agent message 5 statements, all in its own transaction, while the timed answers are off', async () => {
    await timers(false);
    const v = await inConversation();
    const cost = await costOf(10, (index) => sendOver(agent, { YQToken: v.id, msg: `agent ${index}` }));
    console.info('agent message, timers off', { statements: cost.statements, writesAfter: cost.writesAfter });
    expect(cost.statements, cost.listing).toBeLessThanOrEqual(5);
    expect(cost.writesAfter, cost.listing).toBeLessThanOrEqual(0);
    v.socket.close();
  });

  it('stores a burst of visitor messages each under its seq in send order and counted; on PostgreSQL a batch of them is one statement', async () => {
    await timers(false);
    // One after another: inConversation waits for the next acknowledgement on the agent's one socket.
    const visitors: TestVisitor[] = [];
    for (let index = 0; index < 8; index += 1) visitors.push(await inConversation());
    const acked = visitors.map((v) => framesOf(v.socket, '8101').length);
    statements = [];
    counting = true;
    // All in one tick: they share one batch or a few (those arriving while one commits go in the next).
    for (const v of visitors) {
      for (let index = 0; index < 3; index += 1) v.socket.send({ code: '8100', data: { onlyID: onlyId(), msg: `burst ${index}` } });
    }
    const answers = await Promise.all(
      visitors.map((v, which) => v.socket.until(() => framesOf(v.socket, '8101').length === (acked[which] ?? 0) + 3)),
    );
    counting = false;
    expect(answers.every(Boolean)).toBe(true);
    const counted = new Map<string, number>();
    for (const [which, v] of visitors.entries()) {
      const sent = framesOf(v.socket, '8101')
        .slice(acked[which])
        .map((frame) => frame.data as Message);
      expect(sent.map((message) => message.msg)).toEqual(['burst 0', 'burst 1', 'burst 2']);
      const first = sent[0]?.seq ?? 0;
      expect(sent.map((message) => message.seq)).toEqual([first, first + 1, first + 2]);
      const stored = await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${v.credential}&afterSeq=0`);
      expect(stored.body.data.list.filter((message) => message.seq >= first).map((message) => message.msg)).toEqual([
        'burst 0',
        'burst 1',
        'burst 2',
      ]);
      counted.set(v.id, stored.body.data.list.filter((message) => message.role !== 'tip').length);
    }
    // Each conversation counts its messages (tips aside): the opening, the agent's hello and the three.
    const history = await server.get<{ list: { YQToken: string; messages: number }[] }>('/api/history/getList?pageSize=100', {
      token: admin,
    });
    for (const v of visitors) {
      expect(counted.get(v.id)).toBe(5);
      expect(history.body.data.list.find((row) => row.YQToken === v.id)?.messages).toBe(5);
    }
    const batches = statements.filter((text) => /^begin/i.test(text)).length;
    console.info('a burst of 24 visitor messages', { statements: statements.length, batches });
    if (server.storage.dialect === 'postgres') {
      // A batch is its one statement, committed by itself: no BEGIN or COMMIT around it, one round trip.
      expect(batches).toBe(0);
      expect(
        statements.every((text) => /^\s*with i as/i.test(text)),
        statements.join('\n'),
      ).toBe(true);
      expect(statements.length).toBeLessThan(24);
    }
    for (const v of visitors) v.socket.close();
  });

  it("answers each stored message as the database holds it, a visitor's and an agent's first answer alike", async () => {
    const v = await inConversation();
    const { db, dialect } = server.storage;
    const repository = new ConversationRepository(db, dialect);
    const found = await db.selectFrom('visitors').select(['id', 'last_seq']).where('public_id', '=', v.id).executeTakeFirstOrThrow();
    const conversation = await db
      .selectFrom('conversations')
      .select(['id', 'messages'])
      .where('visitor_id', '=', found.id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    // Seqs past the visitor's own, so nothing else the server does collides with them.
    const seq = found.last_seq + 1000;
    const at = new Date().toISOString();
    const answered = await db.transaction().execute(async (tx) => [
      await repository.storeMessage(
        tx,
        found.id,
        seq,
        { only_id: onlyId(), role: 'user', type: 'text', msg: 'as stored ✓ 存好', nickname: 'V0001', service_id: null, created_at: at },
        null,
      ),
      await repository.storeMessage(
        tx,
        found.id,
        seq + 1,
        {
          only_id: onlyId(),
          role: 'service',
          type: 'text',
          msg: 'answered',
          nickname: 'Agent',
          service_id: 'agent-uuid',
          created_at: at,
        },
        at,
      ),
    ]);
    const held = await db
      .selectFrom('messages')
      .selectAll()
      .where(
        'id',
        'in',
        answered.map((row) => row.id),
      )
      .orderBy('seq')
      .execute();
    expect(answered).toEqual(held);
    expect(held.map((row) => row.seq)).toEqual([seq, seq + 1]);
    const counted = await db.selectFrom('conversations').select('messages').where('id', '=', conversation.id).executeTakeFirstOrThrow();
    expect(counted.messages).toBe(conversation.messages + 2);
    v.socket.close();
  });

  it.runIf(backends.postgres)('plans the PostgreSQL batch statement once per connection: its kept plan from the sixth run on', async () => {
    await timers(false);
    const v = await inConversation();
    const { db } = server.storage;
    const row = await db.selectFrom('visitors').select('token_hash').where('public_id', '=', v.id).executeTakeFirstOrThrow();
    const repository = new ConversationRepository(db, 'postgres');
    // A site's tables, not a test's handful of rows: on tables this small any plan costs the same, and
    // PostgreSQL keeps the generic one whatever its guess of the batch's rows.
    const at = '2026-01-01T00:00:00.000Z';
    await sql`insert into visitors (token_hash, public_id, channel, state, created_at, last_seen_at)
      select 'planned-' || n, 'planned-' || n, 'web', 'end', ${at}, ${at} from generate_series(1, 5000) n`.execute(db);
    await sql`insert into conversations (visitor_id, first_seq, last_seq, started_at)
      select id, 1, 1, created_at from visitors where token_hash like 'planned-%'`.execute(db);
    await sql`analyze visitors`.execute(db);
    await sql`analyze conversations`.execute(db);
    // One connection throughout: PostgreSQL counts a prepared statement's plans per connection.
    const plans = await db.connection().execute(async (connection) => {
      for (let run = 0; run < 8; run += 1) {
        const write = {
          tokenHash: row.token_hash,
          onlyId: onlyId(),
          type: 'text',
          msg: `planned ${run}`,
          createdAt: new Date().toISOString(),
        };
        const [wrote] = await repository.visitorWritesMany.runMany(connection, [write]);
        expect(wrote?.message).toMatchObject({ msg: `planned ${run}`, role: 'user' });
      }
      const found = await sql<{ generic_plans: number; custom_plans: number }>`
        select generic_plans, custom_plans from pg_prepared_statements where statement like '%with i as (%'`.execute(connection);
      return found.rows;
    });
    // The connection may have run it before this test (for the messages above): five plans made for their
    // batch, then the one kept. Read from unnest directly, every run was planned anew (custom_plans 8+).
    expect(plans).toHaveLength(1);
    expect(plans[0]?.custom_plans).toBeLessThanOrEqual(5);
    expect(plans[0]?.generic_plans).toBeGreaterThanOrEqual(3);
    const stored = await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${v.credential}&afterSeq=0`);
    expect(stored.body.data.list.map((message) => message.msg).slice(-8)).toEqual(Array.from({ length: 8 }, (_, run) => `planned ${run}`));
    v.socket.close();
  });

  // A measurement, not a check: `HOT_PATH_BENCH=2000 npx vitest run --project server apps/server/test/hot-path.test.ts`.
  it.runIf(process.env.HOT_PATH_BENCH)('reports the CPU time per visitor message', async () => {
    await timers(false);
    const count = Number(process.env.HOT_PATH_BENCH);
    const visitors = await Promise.all(Array.from({ length: 20 }, () => inConversation()));
    const before = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      visitors.map(async (v, which) => {
        for (let index = which; index < count; index += visitors.length) await sendOver(v.socket, { msg: `bench ${index}` });
      }),
    );
    const used = process.cpuUsage(before);
    const wall = performance.now() - started;
    console.info('cpu per visitor message (µs, test process: server and clients)', {
      messages: count,
      userPlusSystem: Math.round((used.user + used.system) / count),
      wallMs: Math.round(wall),
    });
    for (const v of visitors) v.socket.close();
  });
});
