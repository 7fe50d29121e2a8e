import type { AuditEntry, ListData, Message, RobotAsk, RobotAssist, RobotHighSettings, RobotQuestion } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, onlyId, visitor } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';
import type { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';

let server: TestServer;
let admin: string;
/** An agent whose role holds setPermissions:robotSettings only. */
let keeper: string;
/** An agent whose role holds another permission only. */
let outsider: string;
let defaults: RobotHighSettings;
let shipping: number;
let refund: number;

const questions = (pairId: number, token = keeper) =>
  server.get<ListData<RobotQuestion>>(`/api/robot/question/getList?pairId=${pairId}&pageSize=100`, { token });

async function robot(changes: Partial<RobotHighSettings>): Promise<void> {
  const saved = await server.post('/api/robot/high', { ...defaults, threshold: 0.5, ...changes }, { token: admin });
  expect(saved.status).toBe(200);
}

async function pair(questions: string[], answer: string): Promise<number> {
  const saved = await server.post<{ id: number }>('/api/robot/ask/doEdit', { questions, answer }, { token: admin });
  expect(saved.status).toBe(200);
  return saved.body.data.id;
}

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  await server.post('/api/role/doEdit', { name: 'Robots', permissions: ['setPermissions:robotSettings'] }, { token: admin });
  await server.post('/api/role/doEdit', { name: 'Links only', permissions: ['seePermissions:link'] }, { token: admin });
  keeper = (await createAgent(server, admin, { username: 'assist-keeper', role: 'Robots' })).token ?? '';
  outsider = (await createAgent(server, admin, { username: 'assist-outsider', role: 'Links only' })).token ?? '';
  defaults = (await server.get<RobotHighSettings>('/api/robot/high', { token: admin })).body.data;
  shipping = await pair(['How long does shipping take?'], 'Shipping takes three to five days.');
  refund = await pair(['怎么退款', '如何申请退款'], '在订单页点击“申请退款”即可。');
});
afterAll(() => server.close());

describe('the questions and agent-assist routes', () => {
  it('answer 401 without a token and 403 without setPermissions:robotSettings', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/robot/question/getList?pairId=0', undefined],
      ['POST', '/api/robot/question/dismiss', { ids: [1] }],
      ['GET', '/api/robot/assist', undefined],
    ] as const) {
      const anonymous = method === 'GET' ? await server.get(path) : await server.post(path, body);
      expect(anonymous.status, path).toBe(401);
      const refused = method === 'GET' ? await server.get(path, { token: outsider }) : await server.post(path, body, { token: outsider });
      expect(refused.status, path).toBe(403);
    }
  });

  it('name the offending field', async () => {
    const noPair = await server.get('/api/robot/question/getList', { token: keeper, lang: 'en' });
    expect(noPair.status).toBe(400);
    expect(noPair.body.msg).toMatch(/pairId/);
    const noIds = await server.post('/api/robot/question/dismiss', { ids: [] }, { token: keeper, lang: 'en' });
    expect(noIds.status).toBe(400);
    expect(noIds.body.msg).toMatch(/ids/);
  });
});

describe('GET /api/robot/question/getList', () => {
  it('lists where visitors’ questions landed, and those the robot could not answer once per wording with how often', async () => {
    await robot({ enabled: true, mode: 'first', welcome: '', handoverAfterUnknown: 0 });
    const v = await visitor(server);
    await v.say('How long does shipping take?');
    await v.say('Do you sell gift cards?');
    await v.say('do you SELL gift cards');
    await v.say('如何申请退款？');
    // Each question is answered (or not) before the next: four robot messages.
    await v.socket.until(() => framesOf(v.socket, '8005').filter((frame) => (frame.data as Message).role === 'robot').length >= 4);
    // Asking in the console's test box is no visitor's question.
    expect((await server.post('/api/robot/try', { text: 'Is there a student discount?' }, { token: keeper })).status).toBe(200);

    const unanswered = (await questions(0)).body.data;
    expect(unanswered.list.map(({ text, times, pairId }) => ({ text, times, pairId }))).toEqual([
      { text: 'do you SELL gift cards', times: 2, pairId: 0 },
    ]);
    expect(unanswered.list[0]?.last_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await questions(shipping)).body.data.list.map(({ text, times }) => ({ text, times }))).toEqual([
      { text: 'How long does shipping take?', times: 1 },
    ]);
    expect((await questions(refund)).body.data.list.map(({ text }) => text)).toEqual(['如何申请退款？']);
    v.socket.close();
  });

  it('drops an unanswered question once a pair holds it (the console’s "Add as a pair")', async () => {
    const [question] = (await questions(0)).body.data.list;
    if (!question) throw new Error('no unanswered question');
    const id = await pair([question.text], 'Yes, from 10 to 500 euros.');
    expect((await questions(0)).body.data.list).toEqual([]);
    // Asked now, the same question reaches the new pair.
    const v = await visitor(server);
    await v.say('Do you sell gift cards?');
    await v.socket.until(() => framesOf(v.socket, '8005').some((frame) => (frame.data as Message).msg === 'Yes, from 10 to 500 euros.'));
    expect((await questions(id)).body.data.list.map(({ text }) => text)).toEqual(['Do you sell gift cards?']);
    v.socket.close();
  });
});

describe('POST /api/robot/question/dismiss', () => {
  it('sets an unanswered question aside for good, in the audit log; asked again it stays out of the list', async () => {
    const v = await visitor(server);
    await v.say('What is the meaning of life?');
    await v.socket.until(() => framesOf(v.socket, '8005').some((frame) => (frame.data as Message).role === 'robot'));
    const [question] = (await questions(0)).body.data.list;
    expect(question?.text).toBe('What is the meaning of life?');
    if (!question) return;
    expect((await server.post('/api/robot/question/dismiss', { ids: [question.id] }, { token: keeper })).status).toBe(200);
    expect((await questions(0)).body.data.list).toEqual([]);
    const audit = await server.get<{ list: AuditEntry[] }>('/api/audit/getList?action=robot.question.dismiss', { token: admin });
    expect(audit.body.data.list.map((entry) => entry.target)).toEqual(['robot.question:What is the meaning of life?']);

    await v.say('what is the meaning of life');
    await v.socket.until(() => framesOf(v.socket, '8005').filter((frame) => (frame.data as Message).role === 'robot').length >= 2);
    expect((await questions(0)).body.data.list).toEqual([]);
    v.socket.close();
  });
});

describe('agent assist (8016) and GET /api/robot/assist', () => {
  let agent: TestSocket;
  let other: TestSocket;
  beforeAll(async () => {
    await robot({ enabled: false });
    agent = await agentSocket(server, admin);
    // Another agent online, who must never see the suggestions of a conversation that is not theirs.
    other = await agentSocket(server, keeper);
  });
  afterAll(() => {
    agent.close();
    other.close();
  });

  it('offers the matching answer to the conversation’s agent alone, after the visitor’s message', async () => {
    const v = await visitor(server);
    const opening = await v.say('hello');
    await v.socket.frame('2000');
    await agent.until(() => framesOf(agent, '8006').find((frame) => (frame.data as Message).onlyID === opening.onlyID));
    const unknown = await v.say('Can I pay with bitcoin?');
    const known = await v.say('how long does the shipping take');
    const frame = await agent.until(() => framesOf(agent, '8016').find((f) => (f.data as RobotAssist).onlyID === known.onlyID));
    const suggestion = frame.data as RobotAssist;
    expect(suggestion).toMatchObject({
      YQToken: v.id,
      pairId: shipping,
      question: 'How long does shipping take?',
      answer: 'Shipping takes three to five days.',
    });
    expect(suggestion.score).toBeGreaterThanOrEqual(0.5);
    // The visitor's message came first, and nothing was offered for the question no pair answers.
    const codes = agent.frames.map((f) => f as { code: string; data?: { onlyID?: string } }).filter((f) => f.data?.onlyID === known.onlyID);
    expect(codes.map((f) => f.code)).toEqual(['8006', '8016']);
    expect(framesOf(agent, '8016').map((f) => (f.data as RobotAssist).onlyID)).not.toContain(unknown.onlyID);
    expect(framesOf(agent, '8016').map((f) => (f.data as RobotAssist).onlyID)).not.toContain(opening.onlyID);
    expect(framesOf(other, '8016')).toEqual([]);
    expect(framesOf(v.socket, '8016')).toEqual([]);
    // The robot's log is of the robot's own chats: an agent's conversation adds nothing to it.
    expect((await questions(0)).body.data.list.map(({ text }) => text)).not.toContain('Can I pay with bitcoin?');

    // The agent sends the suggestion, edited: counted once, however often the send is repeated.
    const before = (await server.get<{ used: number }>('/api/robot/assist', { token: keeper })).body.data.used;
    expect(before).toBe(0);
    const data = { YQToken: v.id, msg: 'Shipping takes three to five working days.', onlyID: onlyId(), assist: shipping };
    agent.send({ code: '8100', data });
    await agent.until(() => framesOf(agent, '8101').find((f) => (f.data as Message).onlyID === data.onlyID));
    agent.send({ code: '8100', data });
    await agent.until(() => framesOf(agent, '8101').filter((f) => (f.data as Message).onlyID === data.onlyID).length === 2);
    // And once over HTTP, as the console's send without a socket would.
    const overHttp = await server.post(
      '/api/talk/send',
      { YQToken: v.id, msg: 'Anything else?', onlyID: onlyId(), assist: refund },
      { token: admin },
    );
    expect(overHttp.status).toBe(200);
    await v.socket.until(() =>
      framesOf(v.socket, '8005').find((f) => (f.data as Message).msg === 'Shipping takes three to five working days.'),
    );
    // A message sent without the flag counts nothing.
    await server.post('/api/talk/send', { YQToken: v.id, msg: 'Bye', onlyID: onlyId() }, { token: admin });
    await waitFor(
      async () => (await server.get<{ used: number }>('/api/robot/assist', { token: keeper })).body.data.used === 2,
      5000,
      'two assists counted',
    );
    const pairs = (await server.get<{ list: RobotAsk[] }>('/api/robot/ask/getList?pageSize=100', { token: keeper })).body.data.list;
    expect(pairs.find((p) => p.id === shipping)?.assists).toBe(1);
    expect(pairs.find((p) => p.id === refund)?.assists).toBe(1);
    const bad = await server.post(
      '/api/talk/send',
      { YQToken: v.id, msg: 'x', onlyID: onlyId(), assist: 'first' },
      { token: admin, lang: 'en' },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toMatch(/assist/);
    v.socket.close();
  });
});
