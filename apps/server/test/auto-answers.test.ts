import type { Message } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, type TestVisitor, uuidOf, visitor } from './chat-harness.js';
import { startTestServer, type TestServer } from './harness.js';
import type { TestSocket } from './sockets.js';

let server: TestServer;
let admin: string;

const WORDING = {
  greeting: 'Welcome to the shop!',
  queued: 'All agents are busy: you are number {position} in line.',
  noAgent: 'Nobody is online right now. Leave us a message and we will write back.',
};

async function configure(texts: Partial<typeof WORDING>): Promise<void> {
  const current = await server.get<Record<string, unknown>>('/api/settings/autoAnswer', { token: admin });
  expect(current.status).toBe(200);
  const saved = await server.post('/api/settings/autoAnswer', { ...current.body.data, ...texts }, { token: admin });
  expect(saved.status).toBe(200);
}

/** The conversation as the visitor reads it back. */
async function visitorReads(v: TestVisitor): Promise<Pick<Message, 'seq' | 'role' | 'msg'>[]> {
  const read = await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${v.credential}`);
  return read.body.data.list.map(({ seq, role, msg }) => ({ seq, role, msg }));
}

/** The tips pushed to the visitor's socket once `count` have arrived. */
async function tipsPushed(socket: TestSocket, count: number): Promise<string[]> {
  const tips = await socket.until(() => {
    const pushed = framesOf(socket, '2017');
    return pushed.length >= count ? pushed : undefined;
  });
  return tips.map((frame) => (frame.data as Message).msg);
}

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  await configure(WORDING);
});
afterAll(() => server.close());

describe('auto answers of a new conversation', () => {
  it('greets a visitor once, on its first conversation, when an agent takes it at once', async () => {
    const console = await agentSocket(server, admin);
    const v = await visitor(server);
    await v.say('Hello?');
    expect(await tipsPushed(v.socket, 1)).toEqual([WORDING.greeting]);
    expect(await visitorReads(v)).toEqual([
      { seq: 1, role: 'user', msg: 'Hello?' },
      { seq: 2, role: 'tip', msg: WORDING.greeting },
    ]);

    // A later conversation of the same visitor is not greeted again.
    expect((await server.post('/api/talk/end', { YQToken: v.id }, { token: admin })).status).toBe(200);
    await v.say('One more question');
    const after = await visitorReads(v);
    expect(after.filter((message) => message.msg === WORDING.greeting)).toHaveLength(1);
    expect(after.at(-1)).toEqual({ seq: 4, role: 'user', msg: 'One more question' });
    console.close();
    v.socket.close();
  });

  it('tells a visitor nobody is online, after the greeting, when no agent is available', async () => {
    await server.post('/api/index/state', { state: '1' }, { token: admin });
    const v = await visitor(server);
    await v.say('Anyone there?');
    expect(await tipsPushed(v.socket, 2)).toEqual([WORDING.greeting, WORDING.noAgent]);
    expect(await visitorReads(v)).toEqual([
      { seq: 1, role: 'user', msg: 'Anyone there?' },
      { seq: 2, role: 'tip', msg: WORDING.greeting },
      { seq: 3, role: 'tip', msg: WORDING.noAgent },
    ]);
    await server.post('/api/talk/end', { YQToken: v.id }, { token: admin });
    v.socket.close();
  });

  it('tells a queued visitor its place in line while an agent is online but full', async () => {
    await server.post('/api/index/state', { state: '1' }, { token: admin });
    const roles = await server.get<{ list: { id: number; name: string }[] }>('/api/role/getList', { token: admin });
    const roleId = roles.body.data.list.find((role) => role.name === 'Agent')?.id;
    const created = await server.post(
      '/api/service/doEdit',
      { username: 'busy', nickname: 'busy', password: 'agent-pass-1', roleId, disabled: false, maxChats: 1 },
      { token: admin },
    );
    expect(created.status).toBe(200);
    const busy = await server.login('busy', 'agent-pass-1');
    const busySocket = await agentSocket(server, busy);
    const busyUuid = await uuidOf(server, busy);

    const first = await visitor(server);
    expect((await first.say('I came first')).serviceID).toBe(busyUuid);
    const second = await visitor(server);
    await second.say('I came second');
    expect(await tipsPushed(second.socket, 2)).toEqual([WORDING.greeting, 'All agents are busy: you are number 1 in line.']);
    expect((await visitorReads(second)).map((message) => message.msg)).toEqual([
      'I came second',
      WORDING.greeting,
      'All agents are busy: you are number 1 in line.',
    ]);
    for (const socket of [busySocket, first.socket, second.socket]) socket.close();
  });

  it('uses the wording saved last for later conversations, and sends nothing for an emptied text', async () => {
    const console = await agentSocket(server, admin);
    await server.post('/api/index/state', { state: '0' }, { token: admin });
    await configure({ greeting: 'Hi there, thanks for dropping by.' });
    const greeted = await visitor(server);
    await greeted.say('Hello again');
    expect(await tipsPushed(greeted.socket, 1)).toEqual(['Hi there, thanks for dropping by.']);

    await configure({ greeting: '' });
    const quiet = await visitor(server);
    // Auto answers are stored before the visitor's message is answered, so none can follow later.
    await quiet.say('Quiet start');
    expect(await visitorReads(quiet)).toEqual([{ seq: 1, role: 'user', msg: 'Quiet start' }]);
    console.close();
    greeted.socket.close();
    quiet.socket.close();
  });
});

describe('auto answers left at their defaults', () => {
  let fresh: TestServer;
  beforeAll(async () => {
    fresh = await startTestServer();
    // Nobody takes conversations: every new one hears the no-agent text.
    await fresh.post('/api/index/state', { state: '1' }, { token: await fresh.login() });
  });
  afterAll(() => fresh.close());

  it('are worded in the visitor’s language', async () => {
    const english = await visitor(fresh, 'https://shop.example/', { lang: 'en' });
    await english.say('Hello?');
    expect(await tipsPushed(english.socket, 1)).toEqual(['No agent is online right now. Leave a message and we will get back to you.']);
    const chinese = await visitor(fresh, 'https://shop.example/', { lang: 'zh-CN' });
    await chinese.say('你好');
    expect(await tipsPushed(chinese.socket, 1)).toEqual(['暂时没有客服在线，请留言，我们会尽快联系您。']);
    for (const socket of [english.socket, chinese.socket]) socket.close();
  });
});
