import type { AgentPeer, AgentStateData, Message, Visitor } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, onlyId, uuidOf, visitor } from './chat-harness.js';
import { createAgent, sleep, startTestServer, type TestServer } from './harness.js';
import { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';

let server: TestServer;
let admin: string;

const positionOf = (socket: TestSocket) => (framesOf(socket, '2001').at(-1)?.data as { position: number } | undefined)?.position;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

describe('a conversation end to end', () => {
  it('init → 8002 → message → 8006 with seq → send → visitor 8005 → end → rate', async () => {
    const adminUuid = await uuidOf(server, admin);
    const agent = await agentSocket(server, admin);
    const v = await visitor(server);

    const online = await agent.frame('8002');
    expect(online.data).toMatchObject({
      YQToken: v.id,
      online: true,
      state: 'end',
      channel: 'web',
      engine: 'Google',
      keyword: 'chat tool',
      firstUrl: 'https://shop.example/pricing',
    });
    const visit = await agent.frame('8010');
    expect(visit.data).toMatchObject({ YQToken: v.id, URL: 'https://shop.example/pricing', title: 'Pricing' });

    const first = await v.say('Hello, is anyone there?');
    expect(first).toMatchObject({
      seq: 1,
      role: 'user',
      type: 'text',
      msg: 'Hello, is anyone there?',
      YQToken: v.id,
      serviceID: adminUuid,
      withdrawn: false,
    });
    const state = await agent.frame('8001');
    expect(state.data).toEqual({ YQToken: v.id, state: 'current', serviceID: adminUuid });
    const incoming = await agent.frame('8006');
    expect(incoming.recipient).toBe(adminUuid);
    expect(incoming.data).toEqual(first);
    const taken = await v.socket.frame('2000');
    expect(taken.data).toEqual({ serviceID: adminUuid, nickname: 'admin', avatar: '' });

    const list = await server.get<{ list: Visitor[] }>('/api/talk/userList', { token: admin });
    expect(list.body.data.list.find((item) => item.YQToken === v.id)).toMatchObject({
      state: 'current',
      umsg: 1,
      smsg: 0,
      unreadNumber: 1,
      lastMessage: first,
    });

    const reply = await server.post<Message>(
      '/api/talk/send',
      { YQToken: v.id, msg: 'Hi! How can I help?', onlyID: onlyId() },
      { token: admin },
    );
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ seq: 2, role: 'service', nickname: 'admin', serviceID: adminUuid });
    const toVisitor = await v.socket.frame('8005');
    expect(toVisitor.data).toEqual(reply.body.data);
    const echo = await agent.frame('8005');
    expect(echo.recipient).toBe(adminUuid);

    const history = await server.get<{ list: Message[] }>(`/api/talk/messages?YQToken=${v.id}`, { token: admin });
    expect(history.body.data.list.map((message) => message.seq)).toEqual([1, 2]);
    const visitorSide = await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${v.credential}`);
    expect(visitorSide.body.data.list.map((message) => message.msg)).toEqual(['Hello, is anyone there?', 'Hi! How can I help?']);

    const ended = await server.post<Visitor>('/api/talk/end', { YQToken: v.id }, { token: admin });
    expect(ended.status).toBe(200);
    expect(ended.body.data.state).toBe('end');
    expect((await v.socket.frame('2004')).data).toEqual({ rate: true });
    const tip = await v.socket.frame('2017');
    expect(tip.data).toMatchObject({ role: 'tip', msg: 'tip.ended', seq: 3 });
    expect((await server.post('/api/visitor/rate', { YQToken: v.credential, score: 5, comment: 'Great' })).status).toBe(200);
    expect((await server.post('/api/visitor/rate', { YQToken: v.credential, score: 9 })).status).toBe(400);

    // The next message opens a new conversation and seq goes on.
    const again = await v.say('One more thing');
    expect(again.seq).toBe(4);
    agent.close();
    v.socket.close();
  });

  it('is idempotent on (YQToken, onlyID) for visitors and agents', async () => {
    const agent = await agentSocket(server, admin);
    const v = await visitor(server);
    const id = onlyId();
    const [a, b] = await Promise.all([v.say('once', id), v.say('once', id)]);
    expect(a.id).toBe(b.id);
    const third = await v.say('once', id);
    expect(third).toEqual(a);
    const replyId = onlyId();
    const first = await server.post<Message>('/api/talk/send', { YQToken: v.id, msg: 'reply', onlyID: replyId }, { token: admin });
    const second = await server.post<Message>('/api/talk/send', { YQToken: v.id, msg: 'reply', onlyID: replyId }, { token: admin });
    expect(second.body.data).toEqual(first.body.data);
    const all = await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${v.credential}`);
    expect(all.body.data.list.filter((message) => message.role !== 'tip').map((message) => message.msg)).toEqual(['once', 'reply']);
    // A later message of the same visitor takes the same path: once the agent has it, a duplicate
    // announced before would have arrived too.
    const witness = await v.say('witness');
    await agent.until(() => framesOf(agent, '8006').find((frame) => (frame.data as Message).onlyID === witness.onlyID));
    const announced = framesOf(agent, '8006').filter((frame) => (frame.data as Message).onlyID !== witness.onlyID);
    expect(announced.filter((frame) => (frame.data as Message).YQToken === v.id)).toHaveLength(1);
    agent.close();
    v.socket.close();
  });

  it('pushes to every open tab of a visitor', async () => {
    const agent = await agentSocket(server, admin);
    const v = await visitor(server);
    const secondTab = await TestSocket.open(`${server.url.replace('http', 'ws')}/ws/visitor?YQToken=${v.credential}`);
    await v.say('from the first tab');
    const reply = await server.post<Message>(
      '/api/talk/send',
      { YQToken: v.id, msg: 'seen in both tabs', onlyID: onlyId() },
      { token: admin },
    );
    for (const socket of [v.socket, secondTab]) {
      const frame = await socket.until(() =>
        framesOf(socket, '8005').find((item) => (item.data as Message).onlyID === reply.body.data.onlyID),
      );
      expect(frame.data).toEqual(reply.body.data);
    }
    for (const socket of [agent, v.socket, secondTab]) socket.close();
  });

  it('lets a visitor catch up with afterSeq after a dropped socket', async () => {
    const agent = await agentSocket(server, admin);
    const v = await visitor(server);
    const first = await v.say('before the drop');
    v.socket.close();
    for (const text of ['one', 'two', 'three']) {
      await server.post('/api/talk/send', { YQToken: v.id, msg: text, onlyID: onlyId() }, { token: admin });
    }
    const missed = await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${v.credential}&afterSeq=${first.seq}`);
    expect(missed.body.data.list.map((message) => [message.seq, message.msg])).toEqual([
      [first.seq + 1, 'one'],
      [first.seq + 2, 'two'],
      [first.seq + 3, 'three'],
    ]);
    const older = await server.get<{ list: Message[] }>(`/api/talk/messages?YQToken=${v.id}&beforeSeq=${first.seq + 3}&limit=2`, {
      token: admin,
    });
    expect(older.body.data.list.map((message) => message.seq)).toEqual([first.seq + 1, first.seq + 2]);
    agent.close();
  });
});

describe('routing and the queue', () => {
  let queueServer: TestServer;
  beforeAll(async () => {
    queueServer = await startTestServer();
  });
  afterAll(() => queueServer.close());

  it('queues visitors when nobody is available, pushes positions, and two agents racing to accept: exactly one wins', async () => {
    const adminToken = await queueServer.login();
    const one = (await createAgent(queueServer, adminToken, { username: 'racer-one' })).token ?? '';
    const two = (await createAgent(queueServer, adminToken, { username: 'racer-two' })).token ?? '';
    for (const token of [adminToken, one, two]) await queueServer.post('/api/index/state', { state: '1' }, { token });
    const sockets = [await agentSocket(queueServer, one), await agentSocket(queueServer, two)];

    const init = await queueServer.post<{ settings: { online: boolean } }>('/api/visitor/init', { url: 'https://shop.example/' });
    expect(init.body.data.settings.online).toBe(false);

    const first = await visitor(queueServer);
    const second = await visitor(queueServer);
    const third = await visitor(queueServer);
    await first.say('first in line');
    await second.say('second in line');
    await third.say('third in line');
    expect((await third.socket.until(() => framesOf(third.socket, '2001').at(-1))).data).toEqual({ position: 3 });
    expect((await second.socket.until(() => framesOf(second.socket, '2001').at(-1))).data).toEqual({ position: 2 });
    // A waiting visitor's message reaches every agent, with no recipient.
    const waitingMessage = await sockets[0]?.until(() =>
      framesOf(sockets[0] as TestSocket, '8006').find((frame) => (frame.data as Message).msg === 'third in line'),
    );
    expect(waitingMessage?.recipient).toBeUndefined();

    const results = await Promise.all([
      queueServer.post('/api/talk/accept', { YQToken: first.id }, { token: one }),
      queueServer.post('/api/talk/accept', { YQToken: first.id }, { token: two }),
    ]);
    expect(results.map((result) => result.status).sort()).toEqual([200, 409]);
    await third.socket.until(() => positionOf(third.socket) === 2 || undefined);
    await second.socket.until(() => positionOf(second.socket) === 1 || undefined);

    // Going online hands the waiting visitors out at once, oldest first, up to the agent's limit.
    const oneUuid = await uuidOf(queueServer, one);
    await queueServer.post('/api/index/state', { state: '0' }, { token: one });
    expect((await second.socket.frame('2000')).data).toEqual({ serviceID: oneUuid, nickname: 'racer-one', avatar: '' });
    expect((await third.socket.frame('2000')).data).toEqual({ serviceID: oneUuid, nickname: 'racer-one', avatar: '' });
    const order = await queueServer.get<{ list: Visitor[] }>('/api/talk/userList', { token: one });
    expect(order.body.data.list.filter((item) => item.serviceID === oneUuid).length).toBeGreaterThanOrEqual(2);
    for (const socket of [...sockets, first.socket, second.socket, third.socket]) socket.close();
  });

  it('gives a new conversation to the available agent with the fewest open ones, up to maxChats', async () => {
    const adminToken = await queueServer.login();
    await queueServer.post('/api/index/state', { state: '1' }, { token: adminToken });
    const light = await createAgent(queueServer, adminToken, { username: 'light' });
    const lightUuid = await uuidOf(queueServer, light.token ?? '');
    const lightSocket = await agentSocket(queueServer, light.token ?? '');
    const v = await visitor(queueServer);
    const message = await v.say('who answers?');
    expect(message.serviceID).toBe(lightUuid);
    lightSocket.close();
    v.socket.close();
  });
});

describe('who sees what', () => {
  let scoped: TestServer;
  let adminToken: string;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    scoped = await startTestServer();
    adminToken = await scoped.login();
    await scoped.post('/api/index/state', { state: '1' }, { token: adminToken });
    alice = (await createAgent(scoped, adminToken, { username: 'alice' })).token ?? '';
    bob = (await createAgent(scoped, adminToken, { username: 'bob' })).token ?? '';
  });
  afterAll(() => scoped.close());

  it("keeps other agents out of a conversation, lets a supervisor monitor it, and never shows a visitor another's data", async () => {
    await scoped.post('/api/index/state', { state: '1' }, { token: bob });
    const aliceSocket = await agentSocket(scoped, alice);
    const bobSocket = await agentSocket(scoped, bob);
    const adminSocket = await agentSocket(scoped, adminToken);
    const v = await visitor(scoped);
    const other = await visitor(scoped);
    await v.say('for alice');
    await aliceSocket.until(() => framesOf(aliceSocket, '8006').length > 0);

    expect((await scoped.get(`/api/talk/messages?YQToken=${v.id}`, { token: bob })).status).toBe(403);
    expect((await scoped.get(`/api/talk/visits?YQToken=${v.id}`, { token: bob })).status).toBe(403);
    expect((await scoped.post('/api/talk/send', { YQToken: v.id, msg: 'hijack', onlyID: onlyId() }, { token: bob })).status).toBe(403);
    expect((await scoped.post('/api/talk/accept', { YQToken: v.id }, { token: bob })).status).toBe(409);
    expect((await scoped.post('/api/talk/end', { YQToken: v.id }, { token: bob })).status).toBe(403);
    expect((await scoped.post('/api/talk/monitor', { YQToken: v.id }, { token: bob })).status).toBe(403);
    const bobList = await scoped.get<{ list: Visitor[] }>('/api/talk/userList', { token: bob });
    expect(bobList.body.data.list.map((item) => item.YQToken)).not.toContain(v.id);

    expect((await scoped.get(`/api/talk/messages?YQToken=${v.id}`, { token: adminToken })).status).toBe(200);
    const monitored = await scoped.post<Visitor>('/api/talk/monitor', { YQToken: v.id }, { token: adminToken });
    expect(monitored.status).toBe(200);
    await v.say('second for alice');
    await adminSocket.until(() => framesOf(adminSocket, '8006').find((frame) => (frame.data as Message).msg === 'second for alice'));
    // One bus event carries a frame to all its agents' sockets: bob's would be written before this echo.
    await bobSocket.barrier();
    expect(framesOf(bobSocket, '8006').map((frame) => (frame.data as Message).msg)).not.toContain('second for alice');

    await scoped.post('/api/talk/send', { YQToken: v.id, msg: 'private to v', onlyID: onlyId() }, { token: alice });
    await v.socket.frame('8005');
    await other.socket.barrier();
    expect(JSON.stringify(other.socket.frames)).not.toContain(v.id);
    expect(JSON.stringify(other.socket.frames)).not.toContain(v.credential);
    expect(JSON.stringify(other.socket.frames)).not.toContain('private to v');
    for (const socket of [aliceSocket, bobSocket, adminSocket, v.socket, other.socket]) socket.close();
  });

  it('relays typing, visits and withdrawals; only the sender withdraws, within 2 minutes', async () => {
    const aliceSocket = await agentSocket(scoped, alice);
    const v = await visitor(scoped);
    await v.say('typing test');
    v.socket.send({ code: '8011', data: { text: 'I am wri' } });
    const typing = await aliceSocket.frame('8011');
    expect(typing.data).toEqual({ YQToken: v.id, text: 'I am wri' });

    await scoped.post('/api/visitor/visit', { YQToken: v.credential, url: 'https://shop.example/checkout', title: 'Checkout' });
    await aliceSocket.until(() =>
      framesOf(aliceSocket, '8010').find((frame) => (frame.data as { URL: string }).URL === 'https://shop.example/checkout'),
    );
    const visits = await scoped.get<{ list: { URL: string }[] }>(`/api/talk/visits?YQToken=${v.id}`, { token: alice });
    expect(visits.body.data.list.map((item) => item.URL)).toEqual(['https://shop.example/checkout', 'https://shop.example/pricing']);

    const id = onlyId();
    await scoped.post('/api/talk/send', { YQToken: v.id, msg: 'oops', onlyID: id }, { token: alice });
    expect((await scoped.post('/api/talk/withdraw', { YQToken: v.id, onlyID: id }, { token: adminToken })).status).toBe(403);
    expect((await scoped.post('/api/talk/withdraw', { YQToken: v.id, onlyID: id }, { token: alice })).status).toBe(200);
    expect((await v.socket.frame('2015')).data).toEqual({ onlyID: id });
    const stored = await scoped.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${v.credential}`);
    expect(stored.body.data.list.find((message) => message.onlyID === id)).toMatchObject({ withdrawn: true, msg: '' });
    const old = onlyId();
    await scoped.post('/api/talk/send', { YQToken: v.id, msg: 'old news', onlyID: old }, { token: alice });
    await scoped.storage.db
      .updateTable('messages')
      .set({ created_at: new Date(Date.now() - 3 * 60_000).toISOString() })
      .where('only_id', '=', old)
      .execute();
    const late = await scoped.post('/api/talk/withdraw', { YQToken: v.id, onlyID: old }, { token: alice });
    expect(late.status).toBe(409);
    expect(late.body.msg).toBe('Messages can only be withdrawn within 2 minutes');
    aliceSocket.close();
    v.socket.close();
  });

  it('transfers a conversation with a tip both agents and the visitor see', async () => {
    const aliceSocket = await agentSocket(scoped, alice);
    const bobSocket = await agentSocket(scoped, bob);
    const bobUuid = await uuidOf(scoped, bob);
    // Any agent may see whom to transfer to.
    const peers = await scoped.get<{ list: { uuid: string; nickname: string; state: string; online: boolean }[] }>('/api/talk/agents', {
      token: alice,
    });
    expect(peers.status).toBe(200);
    expect(peers.body.data.list.find((peer) => peer.uuid === bobUuid)).toMatchObject({
      uuid: bobUuid,
      nickname: 'bob',
      avatar: '',
      online: true,
    });
    expect((await scoped.get('/api/talk/agents')).status).toBe(401);
    const v = await visitor(scoped);
    await v.say('please transfer me');
    const moved = await scoped.post<Visitor>('/api/talk/transfer', { YQToken: v.id, serviceID: bobUuid }, { token: alice });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ state: 'current', serviceID: bobUuid });
    expect(
      (await v.socket.until(() => framesOf(v.socket, '2000').find((frame) => (frame.data as { serviceID: string }).serviceID === bobUuid)))
        .data,
    ).toMatchObject({ nickname: 'bob' });
    const tipForAlice = await aliceSocket.until(() =>
      framesOf(aliceSocket, '2017').find((frame) => (frame.data as Message).msg === 'tip.transferred'),
    );
    expect((tipForAlice.data as Message).nickname).toBe('bob');
    await bobSocket.until(() => framesOf(bobSocket, '2017').find((frame) => (frame.data as Message).msg === 'tip.transferred'));
    expect((await scoped.post('/api/talk/send', { YQToken: v.id, msg: 'still mine?', onlyID: onlyId() }, { token: alice })).status).toBe(
      403,
    );
    for (const socket of [aliceSocket, bobSocket, v.socket]) socket.close();
  });

  it('refuses to transfer to an agent without a console open, and tells agents when a console opens or closes (8007)', async () => {
    const aliceSocket = await agentSocket(scoped, alice);
    const bobUuid = await uuidOf(scoped, bob);
    // Bob is hidden: a transfer still reaches him, but the queue does not.
    await scoped.post('/api/index/state', { state: '1' }, { token: bob });
    const bobOnline = async () => {
      const peers = await scoped.get<{ list: AgentPeer[] }>('/api/talk/agents', { token: alice });
      return peers.body.data.list.find((peer) => peer.uuid === bobUuid)?.online === true;
    };
    await waitFor(async () => !(await bobOnline()), 5000, 'bob to have no console open');
    const v = await visitor(scoped);
    await v.say('can someone else help?');

    const refused = await scoped.post('/api/talk/transfer', { YQToken: v.id, serviceID: bobUuid }, { token: alice });
    expect(refused.status).toBe(409);
    expect(refused.body.msg).toBe('This agent has no workbench open right now; the conversation cannot be transferred');
    const refusedZh = await scoped.post('/api/talk/transfer', { YQToken: v.id, serviceID: bobUuid }, { token: alice, lang: 'zh' });
    expect(refusedZh.status).toBe(409);
    expect(refusedZh.body.msg).toBe('该客服当前未打开工作台，无法转接');
    const list = await scoped.get<{ list: Visitor[] }>('/api/talk/userList', { token: alice });
    expect(list.body.data.list.find((item) => item.YQToken === v.id)).toMatchObject({
      state: 'current',
      serviceID: await uuidOf(scoped, alice),
    });

    // Bob's presence as Alice's socket hears it from now on (his hiding above told her first).
    await aliceSocket.until(() =>
      framesOf(aliceSocket, '8007').some(
        (frame) => (frame.data as AgentStateData).uuid === bobUuid && (frame.data as AgentStateData).state === '1',
      ),
    );
    const heardBefore = framesOf(aliceSocket, '8007').length;
    const bobHeard = (online: boolean) =>
      aliceSocket.until(() =>
        framesOf(aliceSocket, '8007')
          .slice(heardBefore)
          .find((frame) => {
            const data = frame.data as AgentStateData;
            return data.uuid === bobUuid && data.online === online;
          }),
      );
    const bobSocket = await agentSocket(scoped, bob);
    expect((await bobHeard(true)).data).toEqual({ uuid: bobUuid, state: '1', online: true });
    expect((await scoped.post('/api/talk/transfer', { YQToken: v.id, serviceID: bobUuid }, { token: alice })).status).toBe(200);

    bobSocket.close();
    expect((await bobHeard(false)).data).toEqual({ uuid: bobUuid, state: '1', online: false });
    // Hiding is told with the console's presence alike. Alice may also hear of her own console opening
    // (through Redis, after her socket): only what follows her hiding counts.
    const aliceUuid = await uuidOf(scoped, alice);
    const beforeHiding = framesOf(aliceSocket, '8007').length;
    await scoped.post('/api/index/state', { state: '1' }, { token: alice });
    const hidden = await aliceSocket.until(() =>
      framesOf(aliceSocket, '8007')
        .slice(beforeHiding)
        .find((frame) => (frame.data as AgentStateData).uuid === aliceUuid),
    );
    expect(hidden.data).toEqual({ uuid: aliceUuid, state: '1', online: true });
    await scoped.post('/api/index/state', { state: '0' }, { token: alice });
    for (const socket of [aliceSocket, v.socket]) socket.close();
  });

  it("lets a plain agent hand their own conversation to another agent within that agent's limit, or back to the queue", async () => {
    expect((await scoped.post('/api/talk/transfer', { YQToken: 'x', serviceID: 'queue' })).status).toBe(401);
    const roles = await scoped.get<{ list: { id: number; name: string }[] }>('/api/role/getList', { token: adminToken });
    const agentRole = roles.body.data.list.find((role) => role.name === 'Agent');
    const created = await scoped.post(
      '/api/service/doEdit',
      { username: 'carol', nickname: 'bob', password: 'agent-pass-1', roleId: agentRole?.id, maxChats: 1 },
      { token: adminToken },
    );
    expect(created.status).toBe(200);
    const carol = await scoped.login('carol', 'agent-pass-1');
    const carolUuid = await uuidOf(scoped, carol);
    const aliceUuid = await uuidOf(scoped, alice);
    // Only alice is routed visitors; carol (hidden, console open) may still be handed one.
    await scoped.post('/api/index/state', { state: '1' }, { token: bob });
    await scoped.post('/api/index/state', { state: '1' }, { token: carol });
    await scoped.post('/api/index/state', { state: '0' }, { token: alice });
    const aliceSocket = await agentSocket(scoped, alice);
    const carolSocket = await agentSocket(scoped, carol);

    // Same-named agents differ by username; presence and load come with each.
    const peerOf = async (uuid: string) =>
      (await scoped.get<{ list: AgentPeer[] }>('/api/talk/agents', { token: alice })).body.data.list.find((peer) => peer.uuid === uuid);
    expect(await peerOf(carolUuid)).toEqual({
      uuid: carolUuid,
      username: 'carol',
      nickname: 'bob',
      avatar: '',
      state: '1',
      online: true,
      open: 0,
      maxChats: 1,
    });

    const heldByAlice = async (id: string) =>
      (await scoped.get<{ list: Visitor[] }>('/api/talk/userList', { token: alice })).body.data.list.find(
        (item) => item.YQToken === id && item.state === 'current' && item.serviceID === aliceUuid,
      ) !== undefined;
    const first = await visitor(scoped);
    await first.say('hand me to carol');
    await waitFor(() => heldByAlice(first.id), 5000, 'alice to hold the first visitor');
    // Bob holds no part of it: a plain agent hands on only their own conversation.
    expect((await scoped.post('/api/talk/transfer', { YQToken: first.id, serviceID: carolUuid }, { token: bob })).status).toBe(403);
    const moved = await scoped.post<Visitor>('/api/talk/transfer', { YQToken: first.id, serviceID: carolUuid }, { token: alice });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ state: 'current', serviceID: carolUuid });
    await carolSocket.until(() => framesOf(carolSocket, '2017').find((frame) => (frame.data as Message).msg === 'tip.transferred'));
    expect(await peerOf(carolUuid)).toMatchObject({ open: 1, maxChats: 1 });

    const second = await visitor(scoped);
    await second.say('and me too');
    await waitFor(() => heldByAlice(second.id), 5000, 'alice to hold the second visitor');
    const aliceHolds = (await peerOf(aliceUuid))?.open ?? 0;
    const full = await scoped.post('/api/talk/transfer', { YQToken: second.id, serviceID: carolUuid }, { token: alice });
    expect(full.status).toBe(409);
    expect(full.body.msg).toBe('This agent already has as many conversations as they may hold; the conversation cannot be transferred');
    const fullZh = await scoped.post('/api/talk/transfer', { YQToken: second.id, serviceID: carolUuid }, { token: alice, lang: 'zh' });
    expect(fullZh.status).toBe(409);
    expect(fullZh.body.msg).toBe('该客服的对话数已达上限，无法转接');
    const badTarget = await scoped.post('/api/talk/transfer', { YQToken: second.id, serviceID: 'nobody' }, { token: alice });
    expect(badTarget.status).toBe(400);

    // Back to the queue: the visitor waits again, and alice (online, with room) is not handed it back.
    const queued = await scoped.post<Visitor>('/api/talk/transfer', { YQToken: second.id, serviceID: 'queue' }, { token: alice });
    expect(queued.status).toBe(200);
    expect(queued.body.data).toMatchObject({ state: 'wait', serviceID: null });
    expect((await second.socket.until(() => framesOf(second.socket, '2001').at(-1))).data).toEqual({ position: 1 });
    const requeuedTip = await second.socket.until(() =>
      framesOf(second.socket, '2017').find((frame) => (frame.data as Message).msg === 'tip.requeued'),
    );
    expect((requeuedTip.data as Message).nickname).toBe('alice');
    await aliceSocket.until(() =>
      framesOf(aliceSocket, '8001').find((frame) => {
        const data = frame.data as { YQToken: string; state: string };
        return data.YQToken === second.id && data.state === 'wait';
      }),
    );
    expect((await peerOf(aliceUuid))?.open).toBe(aliceHolds - 1);
    expect((await scoped.post('/api/talk/transfer', { YQToken: second.id, serviceID: 'queue' }, { token: alice })).status).toBe(409);
    // Another agent takes it from the queue.
    const bobTakes = await scoped.post<Visitor>('/api/talk/accept', { YQToken: second.id }, { token: bob });
    expect(bobTakes.body.data).toMatchObject({ state: 'current', serviceID: await uuidOf(scoped, bob) });
    for (const socket of [aliceSocket, carolSocket, first.socket, second.socket]) socket.close();
  });
});

describe('idempotency is per sender', () => {
  it("answers 409 to a replay of another sender's onlyID and keeps each sender's own resends idempotent", async () => {
    const scopedServer = await startTestServer();
    try {
      const adminToken = await scopedServer.login();
      await scopedServer.post('/api/index/state', { state: '1' }, { token: adminToken });
      const alice = (await createAgent(scopedServer, adminToken, { username: 'alice' })).token ?? '';
      const bob = (await createAgent(scopedServer, adminToken, { username: 'bob' })).token ?? '';
      await scopedServer.post('/api/index/state', { state: '1' }, { token: bob });
      const aliceSocket = await agentSocket(scopedServer, alice);
      const v = await visitor(scopedServer);
      const visitorOwn = onlyId();
      await v.say('mine', visitorOwn);
      const aliceId = onlyId();
      const secret = await scopedServer.post<Message>(
        '/api/talk/send',
        { YQToken: v.id, msg: 'for v only', onlyID: aliceId },
        { token: alice },
      );
      expect(secret.status).toBe(200);

      // A supervisor (who may write to the conversation) and bob replay alice's onlyID; alice replays the
      // visitor's; the visitor replays alice's. None of them gets the other sender's message.
      const replays = await Promise.all([
        scopedServer.post<Message>('/api/talk/send', { YQToken: v.id, msg: 'x', onlyID: aliceId }, { token: adminToken }),
        scopedServer.post<Message>('/api/talk/send', { YQToken: v.id, msg: 'x', onlyID: aliceId }, { token: bob }),
        scopedServer.post<Message>('/api/talk/send', { YQToken: v.id, msg: 'x', onlyID: visitorOwn }, { token: alice }),
        scopedServer.post<Message>('/api/visitor/message', { YQToken: v.credential, msg: 'x', onlyID: aliceId }),
      ]);
      expect(replays.map((response) => response.status)).toEqual([409, 409, 409, 409]);
      for (const response of replays) expect(JSON.stringify(response.body)).not.toMatch(/for v only|"mine"/);

      // The same sender's resends, racing ones included, still answer the stored message.
      const again = await scopedServer.post<Message>(
        '/api/talk/send',
        { YQToken: v.id, msg: 'for v only', onlyID: aliceId },
        { token: alice },
      );
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual(secret.body.data);
      const raceId = onlyId();
      const raced = await Promise.all(
        [1, 2, 3].map(() => scopedServer.post<Message>('/api/talk/send', { YQToken: v.id, msg: 'race', onlyID: raceId }, { token: alice })),
      );
      expect(raced.map((response) => response.status)).toEqual([200, 200, 200]);
      expect(new Set(raced.map((response) => response.body.data.id)).size).toBe(1);
      aliceSocket.close();
      v.socket.close();
    } finally {
      await scopedServer.close();
    }
  });
});

describe('bad input disturbs nobody', () => {
  it('answers bodies and frames that are wrong with errors', async () => {
    const agent = await agentSocket(server, admin);
    const v = await visitor(server);
    const bystander = await visitor(server);
    expect((await server.post('/api/visitor/message', { YQToken: v.credential, msg: '', onlyID: onlyId() })).status).toBe(400);
    expect((await server.post('/api/visitor/message', { YQToken: v.credential, msg: 'x'.repeat(5001), onlyID: onlyId() })).status).toBe(
      400,
    );
    expect((await server.post('/api/visitor/message', { YQToken: v.credential, msg: 'x', onlyID: 'bad id with spaces' })).status).toBe(400);
    expect((await server.post('/api/visitor/message', { YQToken: v.credential, msg: 'x', onlyID: onlyId(), type: 'video' })).status).toBe(
      400,
    );
    expect((await server.post('/api/visitor/message', { YQToken: 'A'.repeat(24), msg: 'x', onlyID: onlyId() })).status).toBe(401);
    expect((await server.post('/api/visitor/message', { YQToken: v.credential, msg: 'y'.repeat(300_000), onlyID: onlyId() })).status).toBe(
      413,
    );
    expect((await server.post('/api/talk/send', { YQToken: v.id, msg: 42, onlyID: onlyId() }, { token: admin })).status).toBe(400);
    expect((await server.get('/api/talk/messages?YQToken=short', { token: admin })).status).toBe(400);
    expect((await server.post('/api/visitor/letter', { name: '', content: 'hi' })).status).toBe(400);
    expect((await server.post('/api/visitor/letter', { name: 'Ann', email: 'not-an-email', content: 'hi' })).status).toBe(400);

    const unknown = await TestSocket.open(`${server.url.replace('http', 'ws')}/ws/visitor?YQToken=${'B'.repeat(24)}`);
    expect(await unknown.closed()).toBe(4401);
    v.socket.send('garbage');
    v.socket.send({ code: '8011', data: { text: 7 } });
    v.socket.send({ code: '9999' });
    await v.socket.until(() => framesOf(v.socket, '4000').length === 3);
    v.socket.send('x'.repeat(20_000));
    await v.socket.closed();

    const message = await bystander.say('still working');
    expect(message.msg).toBe('still working');
    await agent.until(() => framesOf(agent, '8006').find((frame) => (frame.data as Message).msg === 'still working'));
    bystander.socket.send('Y');
    await bystander.socket.until(() => bystander.socket.texts.includes('Y'));
    expect(bystander.socket.closeCode).toBeUndefined();
    agent.close();
    bystander.socket.close();
  });
});

describe('presence', () => {
  // The rule is the same whatever the grace: a short one keeps the test from waiting the default 4 s.
  const GRACE_MS = 1000;
  let quick: TestServer;
  let quickAdmin: string;
  beforeAll(async () => {
    quick = await startTestServer({ PRESENCE_GRACE_MS: String(GRACE_MS) });
    quickAdmin = await quick.login();
  });
  afterAll(() => quick.close());

  it('says 8003 only when a visitor stays away past the grace period, not on a reload', async () => {
    const agent = await agentSocket(quick, quickAdmin);
    const about = (code: string, who: string) =>
      framesOf(agent, code).filter((frame) => (frame.data as { YQToken: string }).YQToken === who);
    const v = await visitor(quick);
    const witness = await visitor(quick);
    await agent.until(() => about('8002', v.id).length > 0 && about('8002', witness.id).length > 0);
    // A reload: the old socket is gone before the new one opens.
    v.socket.close();
    await v.socket.closed();
    const back = await TestSocket.open(`${quick.url.replace('http', 'ws')}/ws/visitor?YQToken=${v.credential}`);
    // The witness leaves after v's socket closed: once its 8003 is in, v's grace has run out too.
    witness.socket.close();
    await agent.until(() => about('8003', witness.id).length > 0, GRACE_MS + 6000);
    expect(about('8003', v.id)).toHaveLength(0);
    back.close();
    const left = await agent.until(() => about('8003', v.id)[0], GRACE_MS + 6000);
    expect(left.data).toEqual({ YQToken: v.id });
    agent.close();
  });
});

describe('flooding', () => {
  it('answers 429 to a visitor sending faster than a person types, and takes messages again after the window', async () => {
    // The default window is 10 s; a short one keeps the test from sleeping through it (the limiter
    // keeps its own real clock). It opens at the first request, so the burst of 30 fits in it.
    const own = await startTestServer({ RATE_LIMITS: 'visitorMessage.token=20/1.5' });
    try {
      const v = await visitor(own);
      const statuses = await Promise.all(
        Array.from({ length: 30 }, async (_, index) => {
          const response = await own.post('/api/visitor/message', { YQToken: v.credential, msg: `flood ${index}`, onlyID: onlyId() });
          return response.status;
        }),
      );
      expect(statuses.filter((status) => status === 200).length).toBe(20);
      expect(statuses.filter((status) => status === 429).length).toBe(10);
      const deadline = Date.now() + 10_000;
      let status = 429;
      while (status === 429 && Date.now() < deadline) {
        const response = await own.post('/api/visitor/message', { YQToken: v.credential, msg: 'calm again', onlyID: onlyId() });
        status = response.status;
        if (status === 429) await sleep(Number(response.headers.get('retry-after')) * 250);
      }
      expect(status).toBe(200);
      v.socket.close();
    } finally {
      await own.close();
    }
  });
});

describe('leave a message', () => {
  it('stores the letter and counts it unread for agents', async () => {
    const before = await server.get<number>('/api/letter/unreadCount', { token: admin });
    const created = await server.post<{ id: number }>('/api/visitor/letter', {
      name: 'Ann',
      phone: '+86 138 0000 0000',
      email: 'ann@example.com',
      content: 'Call me back',
    });
    expect(created.status).toBe(200);
    const after = await server.get<number>('/api/letter/unreadCount', { token: admin });
    expect(after.body.data).toBe(before.body.data + 1);
    expect((await server.get('/api/letter/unreadCount')).status).toBe(401);
  });
});
