import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Message, RobotHighSettings, Visitor } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, type TestVisitor, visitor } from './chat-harness.js';
import { startTestServer, type TestServer } from './harness.js';
import type { TestSocket } from './sockets.js';

let server: TestServer;
let admin: string;
let defaults: RobotHighSettings;

const ROBOT = {
  enabled: true,
  name: 'Ada',
  avatar: '',
  mode: 'first' as const,
  welcome: 'Hi, I am Ada. Ask me anything.',
  unknownReply: 'Sorry, I do not know that yet.',
  handoverKeywords: ['人工', 'agent'],
  handoverAfterUnknown: 2,
  threshold: 0.5,
};

async function configure(changes: Partial<RobotHighSettings> = {}): Promise<void> {
  const saved = await server.post('/api/robot/high', { ...defaults, ...ROBOT, ...changes }, { token: admin });
  expect(saved.status).toBe(200);
}

async function conversation(v: TestVisitor): Promise<Message[]> {
  return (await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${v.credential}`)).body.data.list;
}

/** The robot's messages pushed to the visitor once `count` have arrived. */
async function robotSays(socket: TestSocket, count: number): Promise<Message[]> {
  return socket.until(() => {
    const said = framesOf(socket, '8005')
      .map((frame) => frame.data as Message)
      .filter((message) => message.role === 'robot');
    return said.length >= count ? said : undefined;
  });
}

async function stateOf(id: string): Promise<Visitor | undefined> {
  const list = await server.get<{ list: Visitor[] }>('/api/talk/userList', { token: admin });
  return list.body.data.list.find((item) => item.YQToken === id);
}

beforeAll(async () => {
  // The language model's stand-in listens on loopback, which the outbound rule refuses unless listed.
  server = await startTestServer({ OUTBOUND_ALLOW: '127.0.0.1' });
  admin = await server.login();
  defaults = (await server.get<RobotHighSettings>('/api/robot/high', { token: admin })).body.data;
  for (const pair of [
    { questions: ['How do I reset my password?', 'I forgot my password'], answer: 'Use "Forgot password" on the sign-in page.' },
    { questions: ['怎么退款', '如何申请退款'], answer: '在订单页点击“申请退款”即可。', image: '/uploads/refund.png' },
    { questions: ['What are your opening hours?'], answer: 'We are open 9:00 to 18:00, Monday to Friday.' },
    { questions: ['How long does shipping take?'], answer: 'Shipping takes three to five days.' },
  ]) {
    expect((await server.post('/api/robot/ask/doEdit', pair, { token: admin })).status).toBe(200);
  }
});
afterAll(() => server.close());

describe('POST /api/visitor/handover', () => {
  it('answers 401 for an unknown visitor and 400 naming the field', async () => {
    expect((await server.post('/api/visitor/handover', { YQToken: 'x'.repeat(30) })).status).toBe(401);
    const bad = await server.post('/api/visitor/handover', { YQToken: 'no' });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toMatch(/YQToken/);
  });
});

describe('the robot in mode offline', () => {
  it('answers only while nobody can take the visitor, and hands over to the queue with the no-agent answer', async () => {
    await configure({ mode: 'offline' });
    const v = await visitor(server);
    await v.say('How long does shipping take?');
    expect(((await v.socket.frame('9000')).data as { name: string }).name).toBe('Ada');
    const [welcome, answer] = await robotSays(v.socket, 2);
    expect(welcome?.msg).toBe(ROBOT.welcome);
    expect(answer?.msg).toBe('Shipping takes three to five days.');
    expect((await stateOf(v.id))?.state).toBe('robot');

    // Nobody is online: the visitor waits and is told so.
    const handed = await server.post<{ state: string }>('/api/visitor/handover', { YQToken: v.credential });
    expect(handed.body.data.state).toBe('wait');
    await v.socket.frame('2001');
    const tips = await v.socket.until(() => {
      const pushed = framesOf(v.socket, '2017').map((frame) => (frame.data as Message).msg);
      return pushed.length >= 2 ? pushed : undefined;
    });
    expect(tips[0]).toBe('tip.robotHandover');
    // A second press changes nothing.
    expect((await server.post<{ state: string }>('/api/visitor/handover', { YQToken: v.credential })).body.data.state).toBe('wait');

    // Once an agent is online, a new visitor goes to the agent, not the robot.
    const agent = await agentSocket(server, admin);
    await v.socket.frame('2000');
    const w = await visitor(server);
    await w.say('How long does shipping take?');
    await w.socket.frame('2000');
    expect(framesOf(w.socket, '9000')).toHaveLength(0);
    expect((await conversation(w)).some((message) => message.role === 'robot')).toBe(false);
    agent.close();
    await configure({ enabled: false });
  });
});

describe('the robot in mode first', () => {
  let agent: TestSocket;
  beforeAll(async () => {
    agent = await agentSocket(server, admin);
    await configure();
  });
  afterAll(() => agent.close());

  it('takes a new conversation although an agent is online, and answers English and Chinese questions', async () => {
    const v = await visitor(server);
    await v.say('i FORGOT my password!');
    expect((await v.socket.frame('9000')).data).toEqual({ name: 'Ada', avatar: '' });
    const [, answer] = await robotSays(v.socket, 2);
    expect(answer?.msg).toBe('Use "Forgot password" on the sign-in page.');
    expect((await conversation(v)).map(({ seq, role, nickname }) => ({ seq, role, nickname }))).toEqual([
      { seq: 1, role: 'robot', nickname: 'Ada' },
      { seq: 2, role: 'user', nickname: expect.any(String) },
      { seq: 3, role: 'robot', nickname: 'Ada' },
    ]);
    // The workbench hears of the visitor in the robot group, and sees the robot speak.
    await agent.until(() =>
      framesOf(agent, '8001').find(
        (frame) =>
          (frame.data as { YQToken: string; state: string }).YQToken === v.id && (frame.data as { state: string }).state === 'robot',
      ),
    );
    await agent.until(() => framesOf(agent, '8005').find((frame) => (frame.data as Message).msg === answer?.msg));
    expect((await stateOf(v.id))?.state).toBe('robot');

    const zh = await visitor(server, 'https://shop.example/zh', { lang: 'zh-CN' });
    await zh.say('请问如何申请退款？');
    const said = await robotSays(zh.socket, 3);
    expect(said.slice(1).map(({ type, msg }) => ({ type, msg }))).toEqual([
      { type: 'text', msg: '在订单页点击“申请退款”即可。' },
      { type: 'image', msg: '/uploads/refund.png' },
    ]);
    const pairs = await server.get<{ list: { questions: string[]; hits: number }[] }>('/api/robot/ask/getList', { token: admin });
    expect(pairs.body.data.list.find((pair) => pair.questions[0] === '怎么退款')?.hits).toBe(1);
  });

  it('gives the unknown reply with suggestions below the threshold, and hands over after the misses in a row', async () => {
    const v = await visitor(server);
    await v.say('Is shipping to Mars possible with rockets?');
    const [, miss] = await robotSays(v.socket, 2);
    expect(miss?.msg).toBe(ROBOT.unknownReply);
    expect(miss?.suggestions).toContain('How long does shipping take?');
    expect((await conversation(v)).find((message) => message.seq === miss?.seq)?.suggestions).toEqual(miss?.suggestions);
    expect((await stateOf(v.id))?.state).toBe('robot');

    // An answer between two misses starts the count again.
    await v.say('What are your opening hours?');
    await robotSays(v.socket, 3);
    await v.say('Can I pay with seashells?');
    await robotSays(v.socket, 4);
    expect((await stateOf(v.id))?.state).toBe('robot');
    await v.say('Do you sell spaceships?');
    const accepted = await v.socket.frame('2000');
    expect((accepted.data as { nickname: string }).nickname).toBe('admin');
    expect((await stateOf(v.id))?.state).toBe('current');
  });

  it('hands over on a keyword, in either language', async () => {
    const en = await visitor(server);
    await en.say('Let me talk to an agent please');
    await en.socket.frame('2000');
    expect((await conversation(en)).filter((message) => message.role === 'robot').map((message) => message.msg)).toEqual([ROBOT.welcome]);

    const zh = await visitor(server, 'https://shop.example/zh', { lang: 'zh-CN' });
    await zh.say('转人工');
    await zh.socket.frame('2000');
    // "agent" is a word: "agenda" is a question for the robot.
    const other = await visitor(server);
    await other.say('What is on the agenda?');
    await robotSays(other.socket, 2);
    expect((await stateOf(other.id))?.state).toBe('robot');
  });

  it("hands over on the visitor's button, and an agent reads the robot's part", async () => {
    const v = await visitor(server);
    await v.say('How long does shipping take?');
    await robotSays(v.socket, 2);
    const handed = await server.post<{ state: string }>('/api/visitor/handover', { YQToken: v.credential });
    expect(handed.body.data.state).toBe('current');
    await v.socket.frame('2000');
    const read = await server.get<{ list: Message[] }>(`/api/talk/messages?YQToken=${v.id}`, { token: admin });
    expect(read.body.data.list.map(({ role, msg }) => ({ role, msg }))).toEqual([
      { role: 'robot', msg: ROBOT.welcome },
      { role: 'user', msg: 'How long does shipping take?' },
      { role: 'robot', msg: 'Shipping takes three to five days.' },
      { role: 'tip', msg: 'tip.robotHandover' },
    ]);
  });

  it('lets an agent take a robot visitor over with accept', async () => {
    const v = await visitor(server);
    await v.say('What are your opening hours?');
    await robotSays(v.socket, 2);
    const taken = await server.post<Visitor>('/api/talk/accept', { YQToken: v.id }, { token: admin });
    expect(taken.status).toBe(200);
    expect(taken.body.data.state).toBe('current');
    await v.socket.frame('2000');
    // The robot stays quiet from now on.
    await v.say('How long does shipping take?');
    const sent = await server.post<Message>(
      '/api/talk/send',
      { YQToken: v.id, msg: 'Hello, I am here.', onlyID: 'take-1' },
      { token: admin },
    );
    expect(sent.status).toBe(200);
    const all = await conversation(v);
    expect(all.filter((message) => message.role === 'robot')).toHaveLength(2);
    expect(all.at(-1)?.msg).toBe('Hello, I am here.');
  });
});

describe('answers composed by a language model', () => {
  let model: Server;
  let modelUrl: string;
  const requests: { auth: string | undefined; body: { model: string; messages: { role: string; content: string }[] } }[] = [];
  let hold = false;

  beforeAll(async () => {
    // A local stand-in for an OpenAI-compatible endpoint: no model runs in these tests.
    model = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => {
        text += chunk;
      });
      req.on('end', () => {
        const body = JSON.parse(text);
        requests.push({ auth: req.headers.authorization, body });
        if (hold) return; // never answers: the robot's timeout must fall back
        const question = body.messages.at(-1).content as string;
        const content = question.includes('moon') ? 'NO_ANSWER' : 'Our shop ships within three to five days, friend.';
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
      });
    });
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
    modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
    await configure({ llm: { enabled: true, baseUrl: modelUrl, model: 'stand-in', apiKey: 'sk-test', timeoutMs: 500 } });
  });
  afterAll(async () => {
    model.closeAllConnections();
    await new Promise((resolve) => model.close(resolve));
    await configure({ enabled: false });
  });

  it('answers with the model, grounded on the closest pairs, and falls back to the unknown reply', async () => {
    const v = await visitor(server);
    await v.say('How long does shipping take to Berlin?');
    const [, composed] = await robotSays(v.socket, 2);
    expect(composed?.msg).toBe('Our shop ships within three to five days, friend.');
    const sent = requests.at(-1);
    expect(sent?.auth).toBe('Bearer sk-test');
    expect(sent?.body.model).toBe('stand-in');
    expect(sent?.body.messages[0]?.content).toContain('Shipping takes three to five days.');

    await v.say('Do you ship to the moon?');
    const [, , refused] = await robotSays(v.socket, 3);
    expect(refused?.msg).toBe(ROBOT.unknownReply);

    hold = true;
    await v.say('How long does shipping take?');
    const [, , , timedOut] = await robotSays(v.socket, 4);
    expect(timedOut?.msg).toBe(ROBOT.unknownReply);
  });
});

describe('robot settings reaching open widgets', () => {
  it('pushes 2020 to a connected widget when the robot is switched on or off', async () => {
    await configure({ enabled: false });
    const v = await visitor(server);
    const pushes = () => framesOf(v.socket, '2020').map((frame) => frame.data as { robot?: { name: string } });
    const before = pushes().length;
    await configure({ enabled: true, mode: 'first' });
    const on = await v.socket.until(() =>
      pushes()
        .slice(before)
        .find((settings) => settings.robot?.name === 'Ada'),
    );
    expect(on.robot).toEqual({ name: 'Ada', avatar: '' });
    const count = pushes().length;
    await configure({ enabled: false });
    const off = await v.socket.until(() => pushes().slice(count)[0]);
    expect(off.robot).toBeUndefined();
    v.socket.close();
  });
});
