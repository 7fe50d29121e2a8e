import type { Message } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, onlyId, uuidOf, visitor } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';
import type { TestSocket } from './sockets.js';

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

type Answer = { code: string; data: Message | { onlyID: string; status: number; msg: string } };

/** Sends an 8100 and waits for the answer (8101 or 8102) naming its onlyID. */
async function sendOver(socket: TestSocket, data: Record<string, unknown>): Promise<Answer> {
  const before = socket.frames.length;
  socket.send({ code: '8100', data });
  return socket.until(() =>
    socket.frames
      .slice(before)
      .find(
        (frame) => ['8101', '8102'].includes((frame as Answer).code) && (frame as { data: { onlyID: string } }).data.onlyID === data.onlyID,
      ),
  ) as Promise<Answer>;
}

/** The stored messages of the visitor and its agents (tips, such as the auto answers, left out). */
const storedOf = async (credential: string, on = server) =>
  (await on.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${credential}&afterSeq=0`)).body.data.list.filter(
    (message) => message.role !== 'tip',
  );

describe('a visitor sends over the socket (8100)', () => {
  it('is answered 8101 with the stored message, which agents get as the HTTP send gives it', async () => {
    const agent = await agentSocket(server, admin);
    const v = await visitor(server);
    const id = onlyId();
    const answer = await sendOver(v.socket, { msg: 'Hello over the wire', onlyID: id });
    expect(answer.code).toBe('8101');
    expect(answer.data).toMatchObject({ seq: 1, role: 'user', msg: 'Hello over the wire', onlyID: id, YQToken: v.id });
    // Stored before the acknowledgement: the history already holds it.
    expect((await storedOf(v.credential)).map((message) => message.onlyID)).toEqual([id]);
    const incoming = await agent.until(() => framesOf(agent, '8006').find((frame) => (frame.data as Message).onlyID === id));
    expect(incoming.data).toEqual(answer.data);
    agent.close();
  });

  it('answers a resent onlyID with the stored message, stored once, over the socket and over HTTP alike', async () => {
    const v = await visitor(server);
    const id = onlyId();
    const first = await sendOver(v.socket, { msg: 'once', onlyID: id });
    const again = await sendOver(v.socket, { msg: 'once', onlyID: id });
    expect(again).toEqual(first);
    const overHttp = await server.post<Message>('/api/visitor/message', { YQToken: v.credential, msg: 'once', onlyID: id });
    expect(overHttp.body.data).toEqual(first.data);
    expect((await storedOf(v.credential)).length).toBe(1);
  });

  it('keeps the order the messages were sent in, each acknowledged after it was stored', async () => {
    const v = await visitor(server);
    const ids = Array.from({ length: 20 }, () => onlyId());
    for (const [index, id] of ids.entries()) v.socket.send({ code: '8100', data: { msg: `line ${index}`, onlyID: id } });
    const acks = await v.socket.until(() => {
      const sent = framesOf(v.socket, '8101');
      return sent.length === ids.length && sent;
    });
    expect(acks.map((frame) => (frame.data as Message).onlyID)).toEqual(ids);
    const seqs = acks.map((frame) => (frame.data as Message).seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(ids.length);
    expect((await storedOf(v.credential)).map((message) => message.onlyID)).toEqual(ids);
  });

  it('stores the message that opens a conversation and those that follow alike (nickname, agent, seq)', async () => {
    const v = await visitor(server);
    const ids = [onlyId(), onlyId(), onlyId()];
    for (const id of ids) v.socket.send({ code: '8100', data: { msg: `line ${id}`, onlyID: id } });
    const acks = await v.socket.until(() => {
      const sent = framesOf(v.socket, '8101');
      return sent.length === ids.length && sent.map((frame) => frame.data as Message);
    });
    const [opening, ...following] = acks;
    expect(opening?.nickname).toMatch(/^V\d{4,}$/);
    for (const message of following) {
      expect(message).toMatchObject({ role: 'user', nickname: opening?.nickname, serviceID: opening?.serviceID });
    }
    // The opening may be followed by a greeting (a tip of its own seq): the seqs only have to rise.
    const seqs = acks.map((message) => message.seq);
    expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
    expect(await storedOf(v.credential)).toEqual(
      acks.map((message) => expect.objectContaining({ onlyID: message.onlyID, nickname: message.nickname })),
    );
  });

  it('stores a burst of many visitors, sharing commits, each once and each with its own seq', async () => {
    const many = await Promise.all(Array.from({ length: 12 }, () => visitor(server)));
    const ids = many.map(() => [onlyId(), onlyId()]);
    // Everything goes out in one tick: a copy of each first line rides in the same batch as its original.
    for (const [index, v] of many.entries()) {
      const [a, b] = ids[index] as [string, string];
      v.socket.send({ code: '8100', data: { msg: 'first', onlyID: a } });
      v.socket.send({ code: '8100', data: { msg: 'first', onlyID: a } });
      v.socket.send({ code: '8100', data: { msg: 'second', onlyID: b } });
    }
    for (const [index, v] of many.entries()) {
      const acks = await v.socket.until(() => {
        const sent = framesOf(v.socket, '8101');
        return sent.length === 3 && sent;
      });
      const [first, copy, second] = acks.map((frame) => frame.data as Message);
      expect(copy).toEqual(first);
      expect(first?.onlyID).toBe(ids[index]?.[0]);
      expect(second?.seq).toBeGreaterThan(first?.seq ?? 0);
      expect((await storedOf(v.credential)).map((message) => message.msg)).toEqual(['first', 'second']);
    }
  });

  it('refuses bad data with 8102 400 naming the field, in the widget language', async () => {
    const v = await visitor(server);
    const id = onlyId();
    const empty = await sendOver(v.socket, { msg: '', onlyID: id });
    expect(empty).toEqual({ code: '8102', data: { onlyID: id, status: 400, msg: expect.stringContaining('msg') } });
    const kind = await sendOver(v.socket, { msg: 'x', onlyID: id, type: 'video' });
    expect(kind.code).toBe('8102');
    expect(kind.data).toMatchObject({ status: 400, msg: expect.stringContaining('type') });
    const noId = await sendOver(v.socket, { msg: 'x', onlyID: 'not valid!' });
    expect(noId.data).toMatchObject({ status: 400, msg: expect.stringContaining('onlyID') });
    expect(await storedOf(v.credential)).toEqual([]);
  });

  it('refuses a message longer than allowed with 8102 400, as the HTTP send does', async () => {
    const v = await visitor(server);
    const long = 'x'.repeat(5001);
    const answer = await sendOver(v.socket, { msg: long, onlyID: onlyId() });
    const overHttp = await server.post('/api/visitor/message', { YQToken: v.credential, msg: long, onlyID: onlyId() }, { lang: 'zh' });
    expect(answer.code).toBe('8102');
    expect(answer.data).toMatchObject({ status: overHttp.status, msg: overHttp.body.msg });
    expect(overHttp.status).toBe(400);
  });
});

describe('the visitor message limits count socket sends', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ RATE_LIMITS: 'visitorMessage.token=3/60' });
  });
  afterAll(() => limited.close());

  it('answers 8102 429 beyond the limit, with sends over HTTP and over the socket counted together', async () => {
    const v = await visitor(limited);
    await v.say('one over HTTP');
    expect((await sendOver(v.socket, { msg: 'two', onlyID: onlyId() })).code).toBe('8101');
    expect((await sendOver(v.socket, { msg: 'three', onlyID: onlyId() })).code).toBe('8101');
    const refused = await sendOver(v.socket, { msg: 'four', onlyID: onlyId() });
    expect(refused.code).toBe('8102');
    // Worded in the widget's language (the socket names none here: Chinese, the default).
    expect(refused.data).toMatchObject({ status: 429, msg: '发送太频繁，请稍后再试' });
    const overHttp = await limited.post('/api/visitor/message', { YQToken: v.credential, msg: 'five', onlyID: onlyId() });
    expect(overHttp.status).toBe(429);
    expect((await storedOf(v.credential, limited)).length).toBe(3);
  });
});

describe('an agent sends over the socket (8100)', () => {
  it('is answered 8101; the visitor gets 8005, and a resend answers the stored message', async () => {
    const adminUuid = await uuidOf(server, admin);
    const agent = await agentSocket(server, admin);
    const v = await visitor(server);
    const question = await v.say('I need help');
    const id = onlyId();
    const answer = await sendOver(agent, { YQToken: v.id, msg: 'Happy to help', onlyID: id });
    expect(answer.code).toBe('8101');
    expect((answer.data as Message).seq).toBeGreaterThan(question.seq);
    expect(answer.data).toMatchObject({ role: 'service', serviceID: adminUuid, onlyID: id, msg: 'Happy to help' });
    const toVisitor = await v.socket.frame('8005');
    expect(toVisitor.data).toEqual(answer.data);
    expect(await sendOver(agent, { YQToken: v.id, msg: 'Happy to help', onlyID: id })).toEqual(answer);
    expect((await storedOf(v.credential)).map((message) => message.onlyID)).toEqual([question.onlyID, id]);
    agent.close();
  });

  it('takes a waiting visitor as the HTTP send does', async () => {
    const v = await visitor(server);
    const agent = await agentSocket(server, admin);
    const answer = await sendOver(agent, { YQToken: v.id, msg: 'Hello, can I help?', onlyID: onlyId() });
    expect(answer.code).toBe('8101');
    await v.socket.frame('2000');
    agent.close();
  });

  it('refuses another agent’s conversation (403), an unknown visitor (404) and bad data (400)', async () => {
    const v = await visitor(server);
    const owner = await agentSocket(server, admin);
    await sendOver(owner, { YQToken: v.id, msg: 'mine', onlyID: onlyId() });
    const other = await createAgent(server, admin, { username: `socket-${Date.now().toString(36)}` });
    const otherSocket = await agentSocket(server, other.token as string);
    const id = onlyId();
    const notYours = await sendOver(otherSocket, { YQToken: v.id, msg: 'not mine', onlyID: id });
    expect(notYours).toEqual({ code: '8102', data: { onlyID: id, status: 403, msg: expect.any(String) } });
    const overHttp = await server.post(
      '/api/talk/send',
      { YQToken: v.id, msg: 'not mine', onlyID: id },
      { token: other.token, lang: 'zh' },
    );
    expect(overHttp.status).toBe(403);
    expect((notYours.data as { msg: string }).msg).toBe(overHttp.body.msg);
    const unknown = await sendOver(otherSocket, { YQToken: 'x'.repeat(22), msg: 'anyone?', onlyID: onlyId() });
    expect(unknown.data).toMatchObject({ status: 404 });
    const bad = await sendOver(otherSocket, { YQToken: v.id, msg: 'no id', onlyID: '' });
    expect(bad.data).toMatchObject({ status: 400, msg: expect.stringContaining('onlyID') });
    expect((await storedOf(v.credential)).map((message) => message.msg)).toEqual(['mine']);
    owner.close();
    otherSocket.close();
  });
});
