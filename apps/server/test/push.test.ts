import { randomBytes } from 'node:crypto';
import type { PushDevice, PushPayload } from '@parley/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, uuidOf, visitor } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';
import { type DoubleSubscription, PushDouble } from './push-double.js';
import type { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';

let server: TestServer;
let admin: string;
let double: PushDouble;
const opened: TestSocket[] = [];

beforeAll(async () => {
  // The double listens on loopback, which the outbound guard refuses unless told otherwise.
  server = await startTestServer({ OUTBOUND_ALLOW: '127.0.0.1' });
  admin = await server.login();
  const key = await server.get<{ publicKey: string }>('/api/push/key', { token: admin });
  double = await PushDouble.start(key.body.data.publicKey);
});
afterAll(async () => {
  await server.close();
  await double.close();
});
afterEach(() => {
  // Each test's consoles close, so that the next test's visitors are routed to its own agent.
  for (const socket of opened.splice(0)) socket.ws.close();
});

async function newAgent(role = 'Agent') {
  const username = `push-${randomBytes(3).toString('hex')}`;
  const { token } = await createAgent(server, admin, { username, role });
  if (!token) throw new Error('no token');
  return { token, uuid: await uuidOf(server, token) };
}

/** An agent's console, visible or not, as the console reports it (frame 8030). */
async function console_(token: string, visible: boolean): Promise<TestSocket> {
  const socket = await agentSocket(server, token);
  opened.push(socket);
  socket.send({ code: '8030', data: { visible } });
  return socket;
}

async function subscribe(token: string, subscription?: DoubleSubscription, lang: 'zh' | 'en' = 'en') {
  const sub = subscription ?? double.subscription();
  const response = await server.post<PushDevice>('/api/push/subscribe', { endpoint: sub.endpoint, keys: sub.keys }, { token, lang });
  expect(response.status, response.body.msg).toBe(200);
  return { sub, device: response.body.data };
}

async function devices(token: string): Promise<PushDevice[]> {
  const response = await server.get<{ list: PushDevice[] }>('/api/push/devices', { token });
  expect(response.status).toBe(200);
  return response.body.data.list;
}

/** Waits until the visitor's conversation is the agent's. */
async function servedBy(token: string, publicId: string): Promise<void> {
  await waitFor(
    async () => {
      const list = await server.get<{ list: { YQToken: string; state: string }[] }>('/api/talk/userList', { token });
      return list.body.data.list.some((item) => item.YQToken === publicId && item.state === 'current');
    },
    5000,
    'the conversation to reach the agent',
  );
}

async function metric(name: string, reason: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name}{reason="${reason}"}`));
  return line ? Number(line.split(' ')[1]) : 0;
}

describe('push keys and subscriptions', () => {
  it('publishes one P-256 VAPID key, made on the first start and kept with its private half sealed', async () => {
    const key = await server.get<{ publicKey: string }>('/api/push/key', { token: admin });
    expect(key.status).toBe(200);
    expect(Buffer.from(key.body.data.publicKey, 'base64url')).toHaveLength(65);
    const row = await server.storage.db.selectFrom('push_keys').selectAll().executeTakeFirstOrThrow();
    expect(row.public_key).toBe(key.body.data.publicKey);
    expect(row.private_key).toMatch(/^sealed:v1:/);
    expect((await server.get('/api/push/key')).status).toBe(401);
  });

  it('lets any agent subscribe, list and remove only its own devices', async () => {
    const alice = await newAgent();
    const bob = await newAgent();
    const { sub, device } = await subscribe(alice.token);
    expect(device).toMatchObject({ service: new URL(double.origin).host, lastError: null });
    expect(JSON.stringify(device)).not.toContain(sub.endpoint);
    // Subscribing again (new keys of the same browser) keeps one device.
    await subscribe(alice.token, sub);
    expect(await devices(alice.token)).toHaveLength(1);
    expect(await devices(bob.token)).toHaveLength(0);

    expect((await server.post('/api/push/devices/remove', { id: device.id }, { token: bob.token })).status).toBe(404);
    expect(await devices(alice.token)).toHaveLength(1);
    // Another agent's unsubscribe of the endpoint changes nothing.
    await server.post('/api/push/unsubscribe', { endpoint: sub.endpoint }, { token: bob.token });
    expect(await devices(alice.token)).toHaveLength(1);
    expect((await server.post('/api/push/unsubscribe', { endpoint: sub.endpoint }, { token: alice.token })).status).toBe(200);
    expect(await devices(alice.token)).toHaveLength(0);

    const { device: again } = await subscribe(alice.token);
    expect((await server.post('/api/push/devices/remove', { id: again.id }, { token: alice.token })).status).toBe(200);
    expect(await devices(alice.token)).toHaveLength(0);
    expect((await server.post('/api/push/subscribe', { endpoint: sub.endpoint, keys: sub.keys })).status).toBe(401);
  });

  it('refuses malformed subscriptions and endpoints the outbound guard refuses', async () => {
    const { token } = await newAgent();
    const sub = double.subscription();
    const bad = [
      { endpoint: 'ftp://push.example/x', keys: sub.keys },
      { endpoint: sub.endpoint, keys: { p256dh: sub.keys.p256dh } },
      { endpoint: sub.endpoint, keys: { p256dh: 'A'.repeat(87), auth: sub.keys.auth } },
      { endpoint: sub.endpoint, keys: { p256dh: sub.keys.p256dh, auth: 'short' } },
      // A private address that OUTBOUND_ALLOW does not list.
      { endpoint: 'http://10.1.2.3/push/x', keys: sub.keys },
    ];
    for (const body of bad) {
      const response = await server.post('/api/push/subscribe', body, { token });
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    expect(await devices(token)).toHaveLength(0);
  });
});

describe('when the server pushes', () => {
  it("brings a visitor's message to an agent whose console is hidden within 2 s, decrypted, in the agent's language", async () => {
    const agent = await newAgent();
    const { sub } = await subscribe(agent.token, undefined, 'zh');
    await console_(agent.token, false);
    const guest = await visitor(server);
    await guest.say('first');
    await servedBy(agent.token, guest.id);
    const sentAt = Date.now();
    await guest.say('Do you ship to Lyon?');
    const pushed = () => double.to(sub).find((item) => (item.payload as PushPayload).body === 'Do you ship to Lyon?');
    await waitFor(() => pushed() !== undefined, 2000, 'the push');
    const push = pushed();
    expect(push?.at ?? Infinity).toBeLessThan(sentAt + 2000);
    expect(push?.payload).toEqual({
      type: 'newMsg',
      title: expect.stringContaining('发来新消息'),
      body: 'Do you ship to Lyon?',
      url: `/#/workbench/workbench?visitor=${encodeURIComponent(guest.id)}`,
    });
    expect(push?.ttl).toBeGreaterThan(0);
    expect(push?.ttl).toBeLessThanOrEqual(3600);
    expect(push?.urgency).toBe('high');
    expect(double.refused).toEqual([]);
    guest.socket.ws.close();
  });

  it("pushes nothing while one of the agent's consoles is visible, and again once none is", async () => {
    const agent = await newAgent();
    const { sub } = await subscribe(agent.token);
    const hidden = await console_(agent.token, false);
    const shown = await console_(agent.token, true);
    const guest = await visitor(server);
    await guest.say('hello');
    await servedBy(agent.token, guest.id);
    await guest.say('anyone there?');
    // The message reached the visible console: by then the push, if any, was decided.
    await shown.until(() => shown.frames.some((frame) => JSON.stringify(frame).includes('anyone there?')));
    await guest.say('still waiting');
    await shown.until(() => shown.frames.some((frame) => JSON.stringify(frame).includes('still waiting')));
    // A test push goes through the same sending path: once it arrived, any push decided earlier did too.
    await server.post('/api/push/test', undefined, { token: agent.token });
    await waitFor(() => double.to(sub).some((push) => (push.payload as PushPayload).type === 'test'), 2000, 'the test push');
    expect(double.to(sub).filter((push) => (push.payload as PushPayload).type === 'newMsg')).toEqual([]);

    shown.send({ code: '8030', data: { visible: false } });
    await waitFor(
      async () =>
        (await server.storage.db.selectFrom('push_visible').selectAll().where('agent_uuid', '=', agent.uuid).execute()).length === 0,
      2000,
      'the console hidden',
    );
    await guest.say('hello again');
    await waitFor(() => double.to(sub).some((push) => (push.payload as PushPayload).body === 'hello again'), 2000, 'the push');
    hidden.ws.close();
    guest.socket.ws.close();
  });

  it('gives one topic per conversation, so a burst is one notification', async () => {
    const agent = await newAgent();
    const { sub } = await subscribe(agent.token);
    await console_(agent.token, false);
    const first = await visitor(server);
    const second = await visitor(server);
    await first.say('one');
    await second.say('two');
    await servedBy(agent.token, first.id);
    await servedBy(agent.token, second.id);
    for (const text of ['a', 'b', 'c']) await first.say(`first ${text}`);
    await second.say('second a');
    await waitFor(
      () => double.to(sub).filter((push) => /^(first|second) /.test((push.payload as PushPayload).body)).length === 4,
      2000,
      'the pushes',
    );
    const topics = (prefix: string) =>
      new Set(
        double
          .to(sub)
          .filter((push) => (push.payload as PushPayload).body.startsWith(prefix))
          .map((push) => push.topic),
      );
    expect(topics('first ').size).toBe(1);
    expect(topics('second ').size).toBe(1);
    expect([...topics('first ')][0]).not.toBe([...topics('second ')][0]);
    first.socket.ws.close();
    second.socket.ws.close();
  });

  it('tells a transfer to its new agent and a leave-message to holders of seeHistorical', async () => {
    const from = await newAgent();
    const to = await newAgent();
    const { sub } = await subscribe(to.token);
    const fromConsole = await console_(from.token, true);
    const guest = await visitor(server);
    await guest.say('hi');
    await servedBy(from.token, guest.id);
    await console_(to.token, false);
    const moved = await server.post('/api/talk/transfer', { YQToken: guest.id, serviceID: to.uuid }, { token: from.token });
    expect(moved.status, moved.body.msg).toBe(200);
    await waitFor(() => double.to(sub).some((push) => (push.payload as PushPayload).type === 'transfer'), 2000, 'the transfer push');
    expect(double.to(sub).find((push) => (push.payload as PushPayload).type === 'transfer')?.payload).toMatchObject({
      url: `/#/workbench/workbench?visitor=${encodeURIComponent(guest.id)}`,
    });
    fromConsole.ws.close();
    guest.socket.ws.close();

    // The admin holds seeHistorical; a plain agent without it is not told.
    const adminSub = await subscribe(admin);
    const letter = await server.post('/api/visitor/letter', {
      YQToken: (await visitor(server)).credential,
      name: 'Léa',
      phone: '',
      email: 'lea@example.com',
      content: 'Please call me back',
    });
    expect(letter.status, letter.body.msg).toBe(200);
    await waitFor(() => double.to(adminSub.sub).some((push) => (push.payload as PushPayload).type === 'letter'), 2000, 'the letter push');
    expect(double.to(adminSub.sub).find((push) => (push.payload as PushPayload).type === 'letter')?.payload).toMatchObject({
      body: 'Please call me back',
      url: '/#/history/letter',
    });
    await server.post('/api/push/unsubscribe', { endpoint: adminSub.sub.endpoint }, { token: admin });
  });

  it("follows the agent's own switches", async () => {
    const agent = await newAgent();
    const { sub } = await subscribe(agent.token);
    const personal = await server.get<{ nickname: string; avatar: string; notify: Record<string, boolean> }>('/api/personal', {
      token: agent.token,
    });
    expect(personal.body.data.notify).toMatchObject({ transfer: true, letter: true });
    const saved = await server.post(
      '/api/personal',
      { nickname: personal.body.data.nickname, avatar: personal.body.data.avatar, notify: { ...personal.body.data.notify, newMsg: false } },
      { token: agent.token },
    );
    expect(saved.status, saved.body.msg).toBe(200);
    await console_(agent.token, false);
    const guest = await visitor(server);
    await guest.say('hello');
    await servedBy(agent.token, guest.id);
    await guest.say('switched off');
    await server.post('/api/push/test', undefined, { token: agent.token });
    await waitFor(() => double.to(sub).some((push) => (push.payload as PushPayload).type === 'test'), 2000, 'the test push');
    expect(double.to(sub).filter((push) => (push.payload as PushPayload).type === 'newMsg')).toEqual([]);
    guest.socket.ws.close();
  });
});

describe('dead and failing subscriptions', () => {
  it('drops a subscription the push service answers 410 for', async () => {
    const agent = await newAgent();
    const { sub } = await subscribe(agent.token);
    double.status.set(sub.endpoint, 410);
    const answer = await server.post<{ sent: number; failed: number }>('/api/push/test', undefined, { token: agent.token });
    expect(answer.body.data).toEqual({ sent: 0, failed: 1 });
    expect(await devices(agent.token)).toEqual([]);
  });

  it('counts a failure in /metrics and shows it on the device', async () => {
    const agent = await newAgent();
    const { sub } = await subscribe(agent.token);
    const before = await metric('parley_push_failures_total', 'http');
    double.status.set(sub.endpoint, 500);
    const answer = await server.post<{ sent: number; failed: number }>('/api/push/test', undefined, { token: agent.token });
    expect(answer.body.data).toEqual({ sent: 0, failed: 1 });
    expect(await metric('parley_push_failures_total', 'http')).toBe(before + 1);
    const [device] = await devices(agent.token);
    expect(device).toMatchObject({ lastError: 'http 500', lastFailedAt: expect.any(String) });

    // A push that goes through clears it.
    double.status.delete(sub.endpoint);
    expect((await server.post<{ sent: number }>('/api/push/test', undefined, { token: agent.token })).body.data).toEqual({
      sent: 1,
      failed: 0,
    });
    expect((await devices(agent.token))[0]).toMatchObject({ lastError: null, lastSentAt: expect.any(String) });
  });
});
