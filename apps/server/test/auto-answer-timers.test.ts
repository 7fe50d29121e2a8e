import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, onlyId, type TestVisitor, visitor } from './chat-harness.js';
import { backends, configure, startTestServer, type TestServer } from './harness.js';
import { dropSchema } from './processes.js';
import { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';

const MINUTE = 60_000;

/** The servers' clock: real time moved on by whole minutes, so that timers come due without waiting. */
let skipped = 0;
const now = () => Date.now() + skipped;
const FAST = { TIMER_POLL_MS: '20', PRESENCE_GRACE_MS: '50' };

const quiet = { idle: { minutes: 0, text: '' }, agentSilent: { minutes: 0, text: '' }, keywords: [] };

/** The tips pushed to a visitor's socket, in order. */
function tipsOf(socket: TestSocket): string[] {
  return framesOf(socket, '2017').map((frame) => (frame.data as Message).msg);
}

/** What the visitor reads back, tips included. */
async function visitorReads(server: TestServer, v: TestVisitor): Promise<Message[]> {
  const read = await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${v.credential}`);
  return read.body.data.list;
}

/** Waits until no timer is due any more: every one that came due has been acted on. */
async function settled(server: TestServer): Promise<void> {
  await waitFor(
    async () => {
      const due = await server.storage.db
        .selectFrom('conversation_timers')
        .select('id')
        .where('due_at', '<=', new Date(now()).toISOString())
        .execute();
      return due.length === 0;
    },
    8000,
    'the due timers',
  );
}

async function reply(server: TestServer, token: string, v: TestVisitor, msg: string): Promise<void> {
  const sent = await server.post('/api/talk/send', { YQToken: v.id, msg, onlyID: onlyId() }, { token });
  expect(sent.status).toBe(200);
}

describe('timed auto answers', () => {
  let server: TestServer;
  let admin: string;
  let console: TestSocket;

  beforeAll(async () => {
    server = await startTestServer(FAST, { now });
    admin = await server.login();
    console = await agentSocket(server, admin);
    await configure(server, admin, 'autoAnswer', quiet);
    await configure(server, admin, 'windowSetting', { autoCloseMinutes: 0 });
  });
  afterAll(async () => {
    console.close();
    await server.close();
  });

  it('reminds a visitor silent after the agent’s last message, once per agent message', async () => {
    await configure(server, admin, 'autoAnswer', { ...quiet, idle: { minutes: 1, text: 'Are you still with us?' } });
    const v = await visitor(server);
    await v.say('I have a question');
    await reply(server, admin, v, 'Sure, go ahead');
    skipped += MINUTE - 1000;
    await settled(server);
    expect(tipsOf(v.socket)).toEqual([]);
    skipped += 2000;
    await v.socket.until(() => tipsOf(v.socket).length === 1);
    expect(tipsOf(v.socket)).toEqual(['Are you still with us?']);

    // Staying silent longer sends nothing more; the agent's next message starts a new wait.
    skipped += 5 * MINUTE;
    await settled(server);
    expect(tipsOf(v.socket)).toEqual(['Are you still with us?']);
    await reply(server, admin, v, 'Hello?');
    skipped += MINUTE + 1000;
    await v.socket.until(() => tipsOf(v.socket).length === 2);
    const read = await visitorReads(server, v);
    expect(read.filter((message) => message.role === 'tip').map((message) => message.msg)).toEqual([
      'Are you still with us?',
      'Are you still with us?',
    ]);
    v.socket.close();
  });

  it('sends no reminder when the visitor answers in time', async () => {
    await configure(server, admin, 'autoAnswer', { ...quiet, idle: { minutes: 1, text: 'Are you still with us?' } });
    const v = await visitor(server);
    await v.say('Hi');
    await reply(server, admin, v, 'What can I do for you?');
    await v.say('I am looking for a size chart');
    skipped += 2 * MINUTE;
    await settled(server);
    expect(tipsOf(v.socket)).toEqual([]);
    v.socket.close();
  });

  it('tells the visitor the agent is busy once per silence of the agent', async () => {
    await configure(server, admin, 'autoAnswer', { ...quiet, agentSilent: { minutes: 1, text: 'Your agent will be right with you.' } });
    const v = await visitor(server);
    await v.say('Is my order shipped?');
    skipped += 30_000;
    // A second message in the same silence does not move the notice further away.
    await v.say('Order 4711');
    skipped += 31_000;
    await v.socket.until(() => tipsOf(v.socket).length === 1);
    await v.say('Hello??');
    skipped += 5 * MINUTE;
    await settled(server);
    expect(tipsOf(v.socket)).toEqual(['Your agent will be right with you.']);

    // Once the agent answered, the next unanswered message starts a new silence.
    await reply(server, admin, v, 'Checking now');
    await v.say('Thanks, any news?');
    skipped += MINUTE + 1000;
    await v.socket.until(() => tipsOf(v.socket).length === 2);
    expect(tipsOf(v.socket)).toEqual(['Your agent will be right with you.', 'Your agent will be right with you.']);
    v.socket.close();
  });

  it('sends neither timed answer while its minutes are 0 or its text is empty', async () => {
    await configure(server, admin, 'autoAnswer', {
      ...quiet,
      idle: { minutes: 0, text: 'Never sent' },
      agentSilent: { minutes: 1, text: '' },
    });
    const v = await visitor(server);
    await v.say('Anyone?');
    await reply(server, admin, v, 'Yes');
    await v.say('Good');
    skipped += 10 * MINUTE;
    await settled(server);
    expect(tipsOf(v.socket)).toEqual([]);
    v.socket.close();
  });

  it('ends a conversation its visitor left silent, telling the visitor and the agent why', async () => {
    await configure(server, admin, 'autoAnswer', quiet);
    await configure(server, admin, 'windowSetting', { autoCloseMinutes: 3 });
    const v = await visitor(server);
    await v.say('Quick question');
    await reply(server, admin, v, 'Yes?');
    skipped += 2 * MINUTE;
    await settled(server);
    expect(framesOf(v.socket, '2004')).toHaveLength(0);
    skipped += MINUTE + 1000;
    await v.socket.frame('2004');
    await v.socket.until(() => tipsOf(v.socket).includes('tip.closedIdle'));
    await console.until(() =>
      framesOf(console, '2017').find(
        (frame) => (frame.data as Message).msg === 'tip.closedIdle' && frame.data && (frame.data as Message).YQToken === v.id,
      ),
    );
    const list = await server.get<{ list: { YQToken: string; state: string }[] }>('/api/talk/userList', { token: admin });
    expect(list.body.data.list.find((row) => row.YQToken === v.id)?.state ?? 'end').toBe('end');
    expect((await visitorReads(server, v)).at(-1)).toMatchObject({ role: 'tip', msg: 'tip.closedIdle' });
    v.socket.close();
    await configure(server, admin, 'windowSetting', { autoCloseMinutes: 0 });
  });

  it('ends by itself a conversation whose visitor left and did not come back, telling the agent why', async () => {
    await configure(server, admin, 'autoAnswer', quiet);
    await configure(server, admin, 'windowSetting', { autoCloseMinutes: 3 });
    const v = await visitor(server);
    await v.say('Quick question');
    await reply(server, admin, v, 'Yes?');
    const tipFor = (msg: string) => () =>
      framesOf(console, '2017').find((frame) => (frame.data as Message).msg === msg && (frame.data as Message).YQToken === v.id);
    v.socket.close();
    await console.until(tipFor('tip.visitorLeft'));
    // Within the grace the conversation stays with its agent.
    skipped += 2 * MINUTE;
    await settled(server);
    expect(tipFor('tip.closedVisitorLeft')()).toBeUndefined();
    skipped += MINUTE + 1000;
    await console.until(tipFor('tip.closedVisitorLeft'));
    const list = await server.get<{ list: { YQToken: string; state: string }[] }>('/api/talk/userList', { token: admin });
    expect(list.body.data.list.find((row) => row.YQToken === v.id)?.state ?? 'end').toBe('end');
    expect((await visitorReads(server, v)).at(-1)).toMatchObject({ role: 'tip', msg: 'tip.closedVisitorLeft' });
    await configure(server, admin, 'windowSetting', { autoCloseMinutes: 0 });
  });

  it('keeps the conversation of a visitor who comes back within the grace', async () => {
    await configure(server, admin, 'autoAnswer', quiet);
    await configure(server, admin, 'windowSetting', { autoCloseMinutes: 3 });
    const v = await visitor(server);
    await v.say('Quick question');
    await reply(server, admin, v, 'Yes?');
    const tipFor = (msg: string) => () =>
      framesOf(console, '2017').find((frame) => (frame.data as Message).msg === msg && (frame.data as Message).YQToken === v.id);
    v.socket.close();
    await console.until(tipFor('tip.visitorLeft'));
    skipped += 2 * MINUTE;
    const returned = framesOf(console, '8002').length;
    const back = await TestSocket.open(`${server.url.replace('http', 'ws')}/ws/visitor?YQToken=${v.credential}`);
    await console.until(() =>
      framesOf(console, '8002')
        .slice(returned)
        .find((frame) => (frame.data as { YQToken: string }).YQToken === v.id),
    );
    const sent = await server.post('/api/visitor/message', { YQToken: v.credential, msg: 'Back again', onlyID: onlyId() });
    expect(sent.status).toBe(200);
    skipped += 2 * MINUTE;
    await settled(server);
    expect(tipFor('tip.closedVisitorLeft')()).toBeUndefined();
    expect(framesOf(back, '2004')).toHaveLength(0);
    const list = await server.get<{ list: { YQToken: string; state: string }[] }>('/api/talk/userList', { token: admin });
    expect(list.body.data.list.find((row) => row.YQToken === v.id)?.state).toBe('current');
    back.close();
    await configure(server, admin, 'windowSetting', { autoCloseMinutes: 0 });
  });

  it('counts the silence from the visitor’s last message, however many it wrote', async () => {
    await configure(server, admin, 'autoAnswer', quiet);
    await configure(server, admin, 'windowSetting', { autoCloseMinutes: 3 });
    const v = await visitor(server);
    await v.say('First');
    skipped += 2 * MINUTE;
    await v.say('Second, two minutes on');
    // Three minutes after the first message, one after the second: still open.
    skipped += 2 * MINUTE;
    await settled(server);
    expect(framesOf(v.socket, '2004')).toHaveLength(0);
    skipped += MINUTE + 1000;
    await v.socket.frame('2004');
    expect((await visitorReads(server, v)).at(-1)).toMatchObject({ role: 'tip', msg: 'tip.closedIdle' });
    v.socket.close();
    await configure(server, admin, 'windowSetting', { autoCloseMinutes: 0 });
  });

  it('applies auto close, once switched on, to conversations already under way', async () => {
    await configure(server, admin, 'windowSetting', { autoCloseMinutes: 0 });
    const v = await visitor(server);
    await v.say('Before auto close');
    await configure(server, admin, 'windowSetting', { autoCloseMinutes: 3 });
    skipped += 2 * MINUTE;
    await settled(server);
    expect(framesOf(v.socket, '2004')).toHaveLength(0);
    skipped += MINUTE + 1000;
    await v.socket.frame('2004');
    v.socket.close();
    await configure(server, admin, 'windowSetting', { autoCloseMinutes: 0 });
  });

  it('never ends a conversation while auto close is 0', async () => {
    await configure(server, admin, 'windowSetting', { autoCloseMinutes: 0 });
    const v = await visitor(server);
    await v.say('Still here');
    skipped += 24 * 60 * MINUTE;
    await settled(server);
    expect(framesOf(v.socket, '2004')).toHaveLength(0);
    v.socket.close();
  });
});

describe('keyword rules', () => {
  let server: TestServer;
  let admin: string;
  beforeAll(async () => {
    server = await startTestServer(FAST, { now });
    admin = await server.login();
    await server.post('/api/index/state', { state: '0' }, { token: admin });
    await configure(server, admin, 'autoAnswer', {
      ...quiet,
      greeting: '',
      keywords: [
        { words: ['refund', '退款'], reply: 'Refunds reach you within 3 days.' },
        { words: ['refund policy'], reply: 'Never sent: the first matching rule answers.' },
        { words: ['Shipping'], reply: 'We ship every weekday.' },
      ],
    });
  });
  afterAll(() => server.close());

  it('answers a message containing a rule’s word at once, ignoring case and width, first rule only', async () => {
    const console = await agentSocket(server, admin);
    const v = await visitor(server);
    await v.say('What is your ＲＥＦＵＮＤ policy?');
    await v.socket.until(() => tipsOf(v.socket).length === 1);
    await v.say('我想退款');
    await v.say('and SHIPPING?');
    await v.say('thanks');
    await v.socket.until(() => tipsOf(v.socket).length === 3);
    const read = (await visitorReads(server, v)).map(({ role, msg }) => ({ role, msg }));
    expect(read).toEqual([
      { role: 'user', msg: 'What is your ＲＥＦＵＮＤ policy?' },
      { role: 'tip', msg: 'Refunds reach you within 3 days.' },
      { role: 'user', msg: '我想退款' },
      { role: 'tip', msg: 'Refunds reach you within 3 days.' },
      { role: 'user', msg: 'and SHIPPING?' },
      { role: 'tip', msg: 'We ship every weekday.' },
      { role: 'user', msg: 'thanks' },
    ]);
    console.close();
    v.socket.close();
  });
});

describe('timers across a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-timers-'));
  const schema = `tr_${randomBytes(6).toString('hex')}`;
  const shared = { ...FAST, DATA_DIR: dataDir, DATABASE_SCHEMA: schema, REDIS_PREFIX: `parley-${schema}` };
  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('fires a timer that came due while no server ran, once the server is back', async () => {
    const first = await startTestServer(shared, { now });
    const admin = await first.login();
    const agent = await agentSocket(first, admin);
    await configure(first, admin, 'autoAnswer', { ...quiet, idle: { minutes: 2, text: 'Are you still there?' } });
    await configure(first, admin, 'windowSetting', { autoCloseMinutes: 0 });
    const v = await visitor(first);
    await v.say('Hello before the restart');
    await reply(first, admin, v, 'Hello! One moment');
    agent.close();
    v.socket.close();
    await first.close();

    skipped += 3 * MINUTE;
    const second = await startTestServer(shared, { now });
    try {
      await waitFor(
        async () => (await visitorReads(second, v)).some((message) => message.role === 'tip' && message.msg === 'Are you still there?'),
        8000,
        'the reminder after the restart',
      );
      await settled(second);
      const tips = (await visitorReads(second, v)).filter((message) => message.msg === 'Are you still there?');
      expect(tips).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});

// Several processes need a shared database server and Redis: this runs where the CI variables provide them.
describe.runIf(backends.postgres && backends.redis)('timers with two server processes', () => {
  const schema = `tm_${randomBytes(6).toString('hex')}`;
  const shared = { ...FAST, DATABASE_SCHEMA: schema, REDIS_PREFIX: `parley-${schema}` };
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer(shared, { now });
    b = await startTestServer(shared, { now });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await dropSchema(schema);
  });

  it('fire once, whichever process claims them', async () => {
    const admin = await a.login();
    const agent = await agentSocket(a, admin);
    await configure(a, admin, 'autoAnswer', { ...quiet, idle: { minutes: 1, text: 'Still there?' } });
    await configure(a, admin, 'windowSetting', { autoCloseMinutes: 0 });
    const visitors: TestVisitor[] = [];
    for (let index = 0; index < 8; index += 1) {
      const v = await visitor(index % 2 === 0 ? a : b);
      await v.say(`question ${index}`);
      await reply(index % 2 === 0 ? b : a, admin, v, `answer ${index}`);
      visitors.push(v);
    }
    skipped += MINUTE + 1000;
    for (const v of visitors) await v.socket.until(() => tipsOf(v.socket).length >= 1);
    await settled(a);
    for (const v of visitors) {
      const tips = (await visitorReads(a, v)).filter((message) => message.role === 'tip');
      expect(tips.map((message) => message.msg)).toEqual(['Still there?']);
      v.socket.close();
    }
    agent.close();
  });
});
