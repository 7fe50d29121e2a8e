import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEntry, Message, Notice, Webhook, WebhookDelivery, WebhookWithSecret } from '@parley/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { type Db, type DbOrTx, migrate } from '../src/db/index.js';
import { loadSealer } from '../src/lib/sealed.js';
import { openSqliteLog, sharedLog, type WebhookLog } from '../src/modules/webhooks/log-store.js';
import { newDelivery, WebhookRepository } from '../src/modules/webhooks/repository.js';
import type { TakenEvent } from '../src/modules/webhooks/told-in-order.js';
import { MAX_ATTEMPTS, retryWait, SECRET_PURPOSE } from '../src/modules/webhooks/worker.js';
import { agentSocket, onlyId, uuidOf, visitor } from './chat-harness.js';
import { APP_ROOT, backends, createAgent, startTestServer, type TestServer } from './harness.js';
import { buildOnce, dropSchema, procStat, running, type ServerProcess, spawnWebhookWorker } from './processes.js';
import { waitFor } from './waiting.js';
import { verifySignature, WebhookReceiver } from './webhook-receiver.js';

/** Short waits, so that retries and timeouts happen within a test; the rule is the same as in production. */
const FAST = { OUTBOUND_ALLOW: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '700', WEBHOOK_POLL_MS: '50' };

let server: TestServer;
let admin: string;
let receiver: WebhookReceiver;

beforeAll(async () => {
  server = await startTestServer(FAST);
  admin = await server.login();
});
afterAll(async () => {
  await server.close();
  for (const log of logs.values()) await (await log).close();
});

/** Where a server records its deliveries: its database on PostgreSQL, `webhooks.db` beside it on SQLite. */
const logs = new Map<TestServer, Promise<WebhookLog>>();
async function logOf(on: TestServer = server): Promise<Db> {
  let log = logs.get(on);
  if (!log) {
    log = on.storage.dialect === 'sqlite' ? openSqliteLog(on.config.dataDir) : Promise.resolve(sharedLog(on.storage.db));
    logs.set(on, log);
  }
  return (await log).db;
}

/** The queued events not yet made into deliveries (a log apart reads past them, and prunes them later). */
async function stillQueued(on: TestServer = server) {
  const log = await logOf(on);
  const read =
    on.storage.dialect === 'sqlite'
      ? ((await log.selectFrom('webhook_progress').select('value').where('name', '=', 'events').executeTakeFirst())?.value ?? 0)
      : 0;
  return on.storage.db
    .selectFrom('webhook_events')
    .select(['id', 'event_id', 'event', 'webhook_ids', 'body'])
    .where('id', '>', read)
    .execute();
}
afterEach(async () => {
  if (!server.app.server.listening) return receiver?.close();
  // Each test's webhooks go, so that the next test's events reach only its own.
  const list = await server.get<{ list: Webhook[] }>('/api/webhook/getList', { token: admin });
  const ids = list.body.data.list.map((hook) => hook.id);
  if (ids.length > 0) await server.post('/api/webhook/doDelete', { ids }, { token: admin });
  await receiver?.close();
});

async function makeWebhook(events: string[], url?: string, on: TestServer = server, token = admin): Promise<WebhookWithSecret> {
  receiver = url ? receiver : await WebhookReceiver.start();
  const made = await on.post<WebhookWithSecret>('/api/webhook/doEdit', { url: url ?? receiver.url, events, enabled: true }, { token });
  expect(made.status, made.body.msg).toBe(200);
  return made.body.data;
}

async function deliveriesOf(id: number, on: TestServer = server, token = admin): Promise<WebhookDelivery[]> {
  const response = await on.get<{ list: WebhookDelivery[] }>(`/api/webhook/deliveries?id=${id}&pageSize=100`, { token });
  expect(response.status).toBe(200);
  return response.body.data.list;
}

async function auditOf(action: string): Promise<AuditEntry[]> {
  const response = await server.get<{ list: AuditEntry[] }>(`/api/audit/getList?action=${action}&pageSize=100`, { token: admin });
  return response.body.data.list;
}

describe('webhooks', () => {
  it('are created with a secret shown once and sealed, listed, edited and deleted by holders of access, audited', async () => {
    const hook = await makeWebhook(['message.created']);
    expect(hook.secret).toMatch(/^whsec_[\w-]{40,}$/);
    const stored = await server.storage.db.selectFrom('webhooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(hook.secret.slice(6));

    const list = await server.get<{ list: Webhook[] }>('/api/webhook/getList', { token: admin });
    expect(list.body.data.list).toEqual([
      expect.objectContaining({ id: hook.id, url: receiver.url, events: ['message.created'], enabled: true }),
    ]);
    expect(JSON.stringify(list.body)).not.toContain(hook.secret);

    const edited = await server.post<Webhook>(
      '/api/webhook/doEdit',
      { id: hook.id, url: receiver.url, events: ['letter.created', 'rating.created'], enabled: false },
      { token: admin },
    );
    expect(edited.status).toBe(200);
    expect(edited.body.data).toMatchObject({ events: ['letter.created', 'rating.created'], enabled: false });
    expect(edited.body.data).not.toHaveProperty('secret');

    const agent = await createAgent(server, admin, { username: `plain-${randomBytes(3).toString('hex')}` });
    for (const [path, body] of [
      ['/api/webhook/doEdit', { url: receiver.url, events: ['message.created'], enabled: true }],
      ['/api/webhook/test', { id: hook.id }],
      ['/api/webhook/doDelete', { ids: [hook.id] }],
    ] as const)
      expect((await server.post(path, body, { token: agent.token ?? '' })).status).toBe(403);
    expect((await server.get('/api/webhook/getList', { token: agent.token ?? '' })).status).toBe(403);
    expect((await server.get(`/api/webhook/deliveries?id=${hook.id}`, { token: agent.token ?? '' })).status).toBe(403);

    const bad = await server.post('/api/webhook/doEdit', { url: receiver.url, events: ['no.such'], enabled: true }, { token: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain('events');

    expect((await server.post('/api/webhook/doDelete', { ids: [hook.id] }, { token: admin })).status).toBe(200);
    expect((await server.get<{ list: Webhook[] }>('/api/webhook/getList', { token: admin })).body.data.list).toEqual([]);
    const target = `webhook:${hook.id}`;
    expect((await auditOf('webhook.create')).some((entry) => entry.target === target)).toBe(true);
    expect((await auditOf('webhook.update')).some((entry) => entry.target === target)).toBe(true);
    expect((await auditOf('webhook.delete')).some((entry) => entry.target === target)).toBe(true);
    expect(JSON.stringify(await auditOf('webhook.create'))).not.toContain(hook.secret);
  });

  it('delivers a visitor message as message.created, signed with the secret, with the public id and no credential', async () => {
    const hook = await makeWebhook(['message.created']);
    const v = await visitor(server);
    const sent = await v.say('where is my order?');
    await waitFor(() => receiver.of('message.created').length > 0, 10_000, 'message.created');
    const [request] = receiver.of('message.created');
    if (!request) throw new Error('none');
    expect(request.headers['content-type']).toBe('application/json');
    expect(verifySignature(request.headers['parley-signature'], request.body, hook.secret)).toBe(true);
    expect(verifySignature(request.headers['parley-signature'], request.body, 'whsec_other')).toBe(false);
    expect(request.headers['parley-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const envelope = JSON.parse(request.body) as {
      id: string;
      type: string;
      createdAt: string;
      data: { message: Message; visitor: { YQToken: string } };
    };
    expect(envelope).toMatchObject({ type: 'message.created', id: expect.any(String), createdAt: expect.any(String) });
    expect(envelope.data.message).toMatchObject({ id: sent.id, msg: 'where is my order?', role: 'user' });
    expect(envelope.data.visitor.YQToken).toBe(v.id);
    expect(request.body).not.toContain(v.credential);
    expect(request.headers['parley-delivery']).toEqual((await deliveriesOf(hook.id))[0]?.id);
    await waitFor(async () => (await deliveriesOf(hook.id))[0]?.status === 'delivered', 5000, 'delivered');
    expect((await deliveriesOf(hook.id))[0]).toMatchObject({ attempts: 1, responseCode: 200, nextAttemptAt: null });
    v.socket.close();
  });

  it('tells a conversation from first message to rating in order, with letters and agent status, and notes only to note subscribers', async () => {
    const everything = await makeWebhook([
      'visitor.created',
      'conversation.created',
      'conversation.assigned',
      'conversation.ended',
      'message.created',
      'rating.created',
      'letter.created',
      'agent.status',
    ]);
    const notesOnly = await server.post<WebhookWithSecret>(
      '/api/webhook/doEdit',
      { url: `${receiver.url}/notes`, events: ['note.created'], enabled: true },
      { token: admin },
    );
    expect(notesOnly.status).toBe(200);
    const agent = await agentSocket(server, admin);
    const v = await visitor(server);
    await v.say('hello');
    const reply = await server.post('/api/talk/send', { YQToken: v.id, msg: 'hi, how can I help?', onlyID: onlyId() }, { token: admin });
    expect(reply.status).toBe(200);
    expect(
      (await server.post('/api/talk/note', { YQToken: v.id, msg: 'a good customer', onlyID: onlyId() }, { token: admin })).status,
    ).toBe(200);
    expect((await server.post('/api/talk/end', { YQToken: v.id }, { token: admin })).status).toBe(200);
    expect((await server.post('/api/visitor/rate', { YQToken: v.credential, score: 5, comment: 'great' })).status).toBe(200);
    expect((await server.post('/api/visitor/letter', { name: 'Ann', email: 'ann@example.com', content: 'call me' })).status).toBe(200);
    expect((await server.post('/api/index/state', { state: '1' }, { token: admin })).status).toBe(200);

    const envelopes = () =>
      receiver.received
        .filter((request) => request.headers['parley-signature'] && !request.body.includes('"note.created"'))
        .map((request) => JSON.parse(request.body) as { type: string; data: Record<string, unknown> });
    await waitFor(
      () =>
        ['agent.status', 'rating.created', 'letter.created'].every((type) => envelopes().some((envelope) => envelope.type === type)) &&
        receiver.of('note.created').length === 1,
      10_000,
      'every event',
    );
    const mine = envelopes().filter(
      (envelope) => JSON.stringify(envelope.data).includes(v.id) || envelope.type === 'letter.created' || envelope.type === 'agent.status',
    );
    const types = mine.map((envelope) => envelope.type);
    // One conversation's events arrive in the order they happened; a note is never among them.
    const conversation = types.filter((type) => type !== 'letter.created' && type !== 'agent.status');
    expect(conversation).toEqual([
      'visitor.created',
      'conversation.created',
      'message.created',
      'message.created',
      'conversation.ended',
      'rating.created',
    ]);
    expect(types).toContain('letter.created');
    expect(types).toContain('agent.status');
    // Delivery ids are time-ordered UUIDs (version 7), made in the order the events happened.
    const deliveryIds = receiver.received
      .filter((request) => request.body.includes(v.id) && request.headers['parley-event'] !== 'note.created')
      .map((request) => String(request.headers['parley-delivery']));
    expect(deliveryIds).toHaveLength(conversation.length);
    for (const id of deliveryIds) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...deliveryIds].sort()).toEqual(deliveryIds);
    const created = mine.find((envelope) => envelope.type === 'conversation.created');
    expect(created?.data).toMatchObject({ conversation: { id: expect.any(Number), visitor: { YQToken: v.id } } });
    expect(mine.find((envelope) => envelope.type === 'rating.created')?.data).toMatchObject({ score: 5, comment: 'great' });
    expect(mine.find((envelope) => envelope.type === 'letter.created')?.data).toMatchObject({
      letter: { name: 'Ann', content: 'call me' },
    });
    expect(JSON.stringify(mine)).not.toContain(v.credential);
    expect(JSON.stringify(mine)).not.toContain('a good customer');
    const [note] = receiver.of('note.created');
    expect(note?.headers['parley-event']).toBe('note.created');
    expect(JSON.parse(note?.body ?? '{}')).toMatchObject({ data: { note: { msg: 'a good customer' } } });
    expect(verifySignature(note?.headers['parley-signature'], note?.body ?? '', notesOnly.body.data.secret)).toBe(true);
    expect(verifySignature(note?.headers['parley-signature'], note?.body ?? '', everything.secret)).toBe(false);
    // Back to the state it had, so that later tests may give it conversations.
    await server.post('/api/index/state', { state: '0' }, { token: admin });
    agent.close();
    v.socket.close();
  });

  it('tells who took a conversation and to whom it was transferred, the delivery committed with the transfer', async () => {
    const hook = await makeWebhook(['conversation.created', 'conversation.transferred']);
    const first = await createAgent(server, admin, { username: `first-${randomBytes(3).toString('hex')}` });
    const firstSocket = await agentSocket(server, first.token ?? '');
    const v = await visitor(server);
    await v.say('who will help me?');
    type Envelope = {
      data: { conversation: { visitor: { YQToken: string } }; agent?: { uuid: string } | null; from?: string; to?: { uuid: string } };
    };
    const about = (type: string) =>
      receiver
        .of(type)
        .map((request) => JSON.parse(request.body) as Envelope)
        .filter((envelope) => envelope.data.conversation.visitor.YQToken === v.id);
    await waitFor(() => about('conversation.created').length === 1, 10_000, 'conversation.created');
    const taker = about('conversation.created')[0]?.data.agent?.uuid;
    expect(taker).toEqual(expect.any(String));
    // A fresh agent, online with nobody yet: a transfer to it is accepted whoever took the visitor.
    const second = await createAgent(server, admin, { username: `second-${randomBytes(3).toString('hex')}` });
    const secondSocket = await agentSocket(server, second.token ?? '');
    const target = await uuidOf(server, second.token ?? '');
    // A transfer refused (to an agent with no console open) changes nothing and queues nothing.
    const nobody = await createAgent(server, admin, { username: `absent-${randomBytes(3).toString('hex')}` });
    const refused = await server.post(
      '/api/talk/transfer',
      { YQToken: v.id, serviceID: await uuidOf(server, nobody.token ?? '') },
      { token: admin },
    );
    expect(refused.status).toBe(409);
    const transferRows = async () => (await queuedOrDeliveredDb(hook.id, v.id)).filter((event) => event === 'conversation.transferred');
    expect(await transferRows()).toHaveLength(0);
    const moved = await server.post('/api/talk/transfer', { YQToken: v.id, serviceID: target }, { token: admin });
    expect(moved.status, moved.body.msg).toBe(200);
    // Written in the transfer's own transaction: there when its answer is, before anything is sent.
    expect(await transferRows()).toHaveLength(1);
    await waitFor(() => about('conversation.transferred').length === 1, 10_000, 'conversation.transferred');
    expect(about('conversation.transferred')[0]?.data).toMatchObject({ from: taker, to: { uuid: target } });
    firstSocket.close();
    secondSocket.close();
    v.socket.close();
  });

  it('refuses a URL to a private address unless OUTBOUND_ALLOW lists it', async () => {
    const strict = await startTestServer({});
    try {
      const token = await strict.login();
      for (const url of [
        'http://127.0.0.1:9/hook',
        'http://10.0.0.8/hook',
        'http://[::1]/hook',
        'http://169.254.169.254/latest',
        'ftp://example.com/',
      ])
        expect((await strict.post('/api/webhook/doEdit', { url, events: ['message.created'], enabled: true }, { token })).status).toBe(400);
      const refused = await strict.post(
        '/api/webhook/doEdit',
        { url: 'http://127.0.0.1:9/hook', events: ['message.created'], enabled: true },
        { token },
      );
      expect(refused.status).toBe(400);
      expect(refused.body.msg).toContain('url');
    } finally {
      await strict.close();
    }
    // This server lists 127.0.0.1.
    const allowed = await makeWebhook(['message.created']);
    expect(allowed.url).toBe(receiver.url);
  });

  it('retries a 5xx with the same Parley-Delivery until a 2xx', async () => {
    const hook = await makeWebhook(['message.created']);
    receiver.plan = [{ status: 503 }, { status: 500 }];
    const v = await visitor(server);
    await v.say('retry me');
    await waitFor(() => receiver.of('message.created').length >= 3, 10_000, 'three attempts');
    const ids = new Set(receiver.of('message.created').map((request) => request.headers['parley-delivery']));
    expect(ids.size).toBe(1);
    const bodies = new Set(receiver.of('message.created').map((request) => request.body));
    expect(bodies.size).toBe(1);
    await waitFor(async () => (await deliveriesOf(hook.id))[0]?.status === 'delivered', 5000, 'delivered');
    expect((await deliveriesOf(hook.id))[0]).toMatchObject({ attempts: 3, responseCode: 200 });
    v.socket.close();
  });

  it('gives up on a receiver that hangs after the time allowed, and tries again', async () => {
    const hook = await makeWebhook(['message.created']);
    receiver.plan = ['hang'];
    const v = await visitor(server);
    await v.say('are you there?');
    await waitFor(async () => (await deliveriesOf(hook.id))[0]?.status === 'delivered', 10_000, 'delivered after a timeout');
    const [delivery] = await deliveriesOf(hook.id);
    expect(delivery).toMatchObject({ attempts: 2, responseCode: 200 });
    expect(receiver.of('message.created')).toHaveLength(2);
    v.socket.close();
  });

  it('lets a receiver that hangs hold up only its own deliveries', async () => {
    // A time allowed longer than the test's wait: the healthy webhook's deliveries must not wait for it.
    const patient = await startTestServer({ ...FAST, WEBHOOK_TIMEOUT_MS: '8000' });
    const hanging = await WebhookReceiver.start();
    hanging.otherwise = 'hang';
    try {
      const token = await patient.login();
      await makeWebhook(['message.created'], hanging.url, patient, token);
      const healthy = await makeWebhook(['message.created'], undefined, patient, token);
      const v = await visitor(patient);
      const started = Date.now();
      for (const text of ['one', 'two', 'three', 'four', 'five']) await v.say(text);
      await waitFor(() => receiver.of('message.created').length === 5, 5000, 'the healthy webhook’s five deliveries');
      // Each is recorded a moment after its answer: the log is waited on, and still well within the hanging one's time.
      const statuses = async () => (await deliveriesOf(healthy.id, patient, token)).map((delivery) => delivery.status);
      await expect.poll(statuses, { timeout: 5000 }).toEqual(Array(5).fill('delivered'));
      expect(Date.now() - started).toBeLessThan(8000);
      // The hanging one has its first attempt under way; the conversation's later events wait their turn.
      expect(hanging.of('message.created')).toHaveLength(1);
      v.socket.close();
    } finally {
      await hanging.close();
      await patient.close();
    }
  });

  it('sends a delivery once while its answer is recorded, however often the worker looks meanwhile', async () => {
    // A look every 10 ms, and an answer that comes after the look that sent it stopped waiting for it (1 s):
    // its outcome is then recorded on its own, a moment later, while the next looks find it still pending.
    const watchful = await startTestServer({ ...FAST, WEBHOOK_POLL_MS: '10', WEBHOOK_TIMEOUT_MS: '3000' });
    try {
      const token = await watchful.login();
      const hook = await makeWebhook(['message.created'], undefined, watchful, token);
      receiver.plan = [{ status: 200, afterMs: 1100 }];
      const v = await visitor(watchful);
      await v.say('take your time');
      const delivered = () => deliveriesOf(hook.id, watchful, token);
      await expect.poll(async () => (await delivered())[0]?.status, { timeout: 5000 }).toBe('delivered');
      expect(receiver.of('message.created')).toHaveLength(1);
      expect((await delivered())[0]).toMatchObject({ attempts: 1, responseCode: 200 });
      v.socket.close();
    } finally {
      await watchful.close();
    }
  });

  it('does not follow a redirect, and reads nothing of a 100 MB answer', async () => {
    const hook = await makeWebhook(['message.created']);
    receiver.plan = ['redirect', 'huge'];
    const v = await visitor(server);
    await v.say('redirect then huge');
    await waitFor(async () => (await deliveriesOf(hook.id))[0]?.status === 'delivered', 10_000, 'delivered');
    // The redirect counted as a failure and was not followed: no request reached its target.
    expect(receiver.received.map((request) => request.headers['parley-event'])).toEqual(['message.created', 'message.created']);
    expect(receiver.received.every((request) => !request.headers.host?.includes('elsewhere'))).toBe(true);
    const [delivery] = await deliveriesOf(hook.id);
    expect(delivery).toMatchObject({ attempts: 2, responseCode: 200, status: 'delivered' });
    expect(receiver.hugeBytesSent).toBeLessThan(100 * 1024 * 1024);
    const memory = process.memoryUsage().rss;
    expect(memory).toBeLessThan(1024 * 1024 * 1024);
    v.socket.close();
  });

  it('keeps one conversation in order: a later event waits while an earlier one is retried', async () => {
    await makeWebhook(['message.created']);
    receiver.plan = [{ status: 500 }, { status: 500 }];
    const v = await visitor(server);
    for (const text of ['one', 'two', 'three']) await v.say(text);
    await waitFor(() => receiver.of('message.created').length >= 5, 10_000, 'five requests');
    const order = receiver
      .of('message.created')
      .map((request) => (JSON.parse(request.body) as { data: { message: Message } }).data.message.msg);
    expect(order).toEqual(['one', 'one', 'one', 'two', 'three']);
    v.socket.close();
  });

  it('sends a ping on test, redelivers a delivery under a new id, and drops a deleted webhook’s pending ones', async () => {
    const hook = await makeWebhook(['letter.created']);
    const tested = await server.post<WebhookDelivery>('/api/webhook/test', { id: hook.id }, { token: admin });
    expect(tested.status).toBe(200);
    expect(tested.body.data).toMatchObject({ event: 'ping', status: 'pending' });
    await waitFor(() => receiver.of('ping').length === 1, 5000, 'ping');
    const ping = receiver.of('ping')[0];
    expect(ping?.headers['parley-delivery']).toBe(tested.body.data.id);
    expect(JSON.parse(ping?.body ?? '{}')).toMatchObject({ type: 'ping', data: { webhookId: hook.id } });
    expect(verifySignature(ping?.headers['parley-signature'], ping?.body ?? '', hook.secret)).toBe(true);

    const again = await server.post<WebhookDelivery>('/api/webhook/redeliver', { deliveryId: tested.body.data.id }, { token: admin });
    expect(again.status).toBe(200);
    expect(again.body.data.id).not.toBe(tested.body.data.id);
    await waitFor(() => receiver.of('ping').length === 2, 5000, 'redelivered ping');
    expect(receiver.of('ping')[1]?.body).toBe(ping?.body);
    expect(receiver.of('ping')[1]?.headers['parley-delivery']).toBe(again.body.data.id);
    expect(
      (await server.post('/api/webhook/redeliver', { deliveryId: '00000000-0000-4000-8000-000000000000' }, { token: admin })).status,
    ).toBe(404);
    expect((await server.post('/api/webhook/test', { id: 999_999 }, { token: admin })).status).toBe(404);

    // A receiver that fails keeps a delivery pending; deleting the webhook drops it, it is never sent again.
    receiver.otherwise = { status: 500 };
    await server.post('/api/webhook/test', { id: hook.id }, { token: admin });
    await waitFor(() => receiver.of('ping').length >= 3, 5000, 'failing ping');
    expect((await server.post('/api/webhook/doDelete', { ids: [hook.id] }, { token: admin })).status).toBe(200);
    const left = await (await logOf()).selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', hook.id).execute();
    expect(left).toEqual([]);
    const before = receiver.received.length;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(receiver.received.length).toBe(before);
  });

  it('queues a message by reference, its body built by the worker; one purged meanwhile tells nothing', async () => {
    const hook = await makeWebhook(['message.created']);
    const v = await visitor(server);
    await v.say('built later');
    await waitFor(() => receiver.of('message.created').length === 1, 5000, 'the message');
    // The message's transaction wrote which message; the body the receiver got was built from it.
    const told = JSON.parse(receiver.of('message.created')[0]?.body ?? '{}') as {
      id: string;
      data: { conversationId: number; message: Message };
    };
    expect(told.data.message.msg).toBe('built later');
    expect(told.data.conversationId).toEqual(expect.any(Number));
    // A message gone before the worker read it (purged by retention): nothing is sent for it.
    await server.storage.db
      .insertInto('webhook_events')
      .values({
        event_id: '00000000-0000-4000-8000-0000000f0001',
        event: 'message.created',
        order_key: null,
        source: 'message:999999999',
        body: '',
        webhook_ids: JSON.stringify([hook.id]),
        created_at: new Date().toISOString(),
      })
      .execute();
    await server.post('/api/webhook/test', { id: hook.id }, { token: admin });
    await waitFor(() => receiver.of('ping').length === 1, 5000, 'ping');
    await waitFor(async () => (await stillQueued()).length === 0, 5000, 'the queue read');
    expect((await deliveriesOfDb(hook.id)).map((row) => row.event).sort()).toEqual(['message.created', 'ping']);
    expect(receiver.of('message.created')).toHaveLength(1);
    v.socket.close();
  });

  it('signs with both secrets while a rotation is under way', async () => {
    const hook = await makeWebhook(['letter.created']);
    const rotated = await server.post<WebhookWithSecret>('/api/webhook/rotateSecret', { id: hook.id }, { token: admin });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).not.toBe(hook.secret);
    expect(rotated.body.data.previousSecretUntil).toEqual(expect.any(String));
    await server.post('/api/webhook/test', { id: hook.id }, { token: admin });
    await waitFor(() => receiver.of('ping').length === 1, 5000, 'ping');
    const ping = receiver.of('ping')[0];
    expect(ping?.headers['parley-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifySignature(ping?.headers['parley-signature'], ping?.body ?? '', hook.secret)).toBe(true);
    expect(verifySignature(ping?.headers['parley-signature'], ping?.body ?? '', rotated.body.data.secret)).toBe(true);
  });

  it('disables a webhook after 20 failures in a row and tells Admins', async () => {
    const hook = await makeWebhook(['letter.created']);
    receiver.otherwise = { status: 500 };
    for (let i = 0; i < 20; i += 1) await server.post('/api/webhook/test', { id: hook.id }, { token: admin });
    await waitFor(
      async () => (await server.get<{ list: Webhook[] }>('/api/webhook/getList', { token: admin })).body.data.list[0]?.enabled === false,
      15_000,
      'disabled',
    );
    const notices = await server.get<{ list: Notice[] }>('/api/notice/getList', { token: admin });
    expect(notices.body.data.list.some((notice) => notice.notice.includes(receiver.url) && notice.title === 'A webhook was disabled')).toBe(
      true,
    );
  });

  it('keeps pending deliveries over a restart and sends them after it', async () => {
    const hook = await makeWebhook(['message.created']);
    receiver.otherwise = { status: 503 };
    const v = await visitor(server);
    await v.say('survive a restart');
    await waitFor(() => receiver.of('message.created').length >= 1, 5000, 'first attempt');
    v.socket.close();
    await server.app.close();
    expect((await deliveriesOfDb(hook.id))[0]?.status).toBe('pending');
    // A delivery that went out 31 days ago leaves the log at the next start; the rest stay.
    await (await logOf())
      .insertInto('webhook_deliveries')
      .values({
        uuid: '00000000-0000-4000-8000-00000000a9ed',
        webhook_id: hook.id,
        event_id: '00000000-0000-4000-8000-00000000a9ee',
        event: 'ping',
        order_key: null,
        source: null,
        body: '{}',
        status: 'delivered',
        created_at: new Date(Date.now() - 31 * 86_400_000).toISOString(),
        last_attempt_at: null,
        next_at: null,
        response_code: 200,
        error: null,
        claimed_until: null,
      })
      .execute();
    // An event the stop left queued, not yet made into deliveries, for this webhook and one deleted since.
    await server.storage.db
      .insertInto('webhook_events')
      .values({
        event_id: '00000000-0000-4000-8000-00000000a9ef',
        event: 'letter.created',
        order_key: null,
        source: null,
        body: '{"queued":"before the stop"}',
        webhook_ids: JSON.stringify([hook.id, hook.id + 1000]),
        created_at: new Date().toISOString(),
      })
      .execute();
    receiver.otherwise = { status: 200 };
    const again = await buildApp({ config: server.config, storage: server.storage, bus: server.bus, logger: false });
    await again.listen({ port: 0, host: '127.0.0.1' });
    try {
      await waitFor(
        async () =>
          (await deliveriesOfDb(hook.id)).every((delivery) => delivery.status === 'delivered') &&
          receiver.of('message.created').length >= 2,
        10_000,
        'delivered after restart',
      );
      const told = receiver.of('message.created').map((request) => ({
        delivery: request.headers['parley-delivery'],
        msg: (JSON.parse(request.body) as { data: { message: Message } }).data.message.msg,
      }));
      // The pending one went out again under its id, and nothing else was told.
      expect(new Set(told.filter((entry) => entry.msg === 'survive a restart').map((entry) => entry.delivery)).size).toBe(1);
      expect(told.every((entry) => entry.msg === 'survive a restart')).toBe(true);
      // The queued event went out once, to the webhook that still exists; the queue is empty (left: the
      // message's delivery and this one, once the old one is pruned).
      await waitFor(() => receiver.of('letter.created').length === 1, 5000, 'the queued event');
      expect(receiver.of('letter.created')[0]?.body).toBe('{"queued":"before the stop"}');
      expect(await stillQueued()).toEqual([]);
      // Events made into deliveries leave the queue (a log apart deletes them a while after).
      await waitFor(
        async () => (await server.storage.db.selectFrom('webhook_events').select('id').execute()).length === 0,
        10_000,
        'queue pruned',
      );
      expect((await deliveriesOfDb(hook.id + 1000)).length).toBe(0);
      await waitFor(async () => (await deliveriesOfDb(hook.id)).length === 2, 5000, 'the old delivery pruned');
    } finally {
      await again.close();
    }
    // The rest of this file's clean-up talks to the server: it stays closed, so its webhooks go directly.
    await (await logOf()).deleteFrom('webhook_deliveries').execute();
    await server.storage.db.deleteFrom('webhooks').execute();
  });
});

describe.skipIf(backends.postgres)('the delivery log on SQLite', () => {
  it('is a database of its own; deliveries an earlier version left in parley.db are moved there and sent', async () => {
    const hooks = await WebhookReceiver.start();
    const key = randomBytes(24).toString('hex');
    const at = new Date().toISOString();
    let hookId = 0;
    const upgraded = await startTestServer(
      { ...FAST, SECRET_KEY: key },
      {
        // The database as an earlier version left it: a webhook with a delivery pending in parley.db.
        beforeMigrate: async (storage) => {
          await migrate(storage);
          const inserted = await storage.db
            .insertInto('webhooks')
            .values({
              url: hooks.url,
              events: '["letter.created"]',
              enabled: 1,
              secret: loadSealer('', key).seal('whsec_earlier', SECRET_PURPOSE),
              previous_secret: null,
              previous_until: null,
              created_at: at,
              updated_at: at,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          hookId = inserted.id;
          await storage.db
            .insertInto('webhook_deliveries')
            .values(
              newDelivery({
                uuid: '00000000-0000-4000-8000-0000000e0001',
                webhookId: hookId,
                eventId: '00000000-0000-4000-8000-0000000e0002',
                event: 'letter.created',
                orderKey: null,
                source: null,
                body: '{"left":"by an earlier version"}',
                at,
              }),
            )
            .execute();
        },
      },
    );
    try {
      const token = await upgraded.login();
      // It goes out once the delivery process starts (webhooks exist), signed with the secret it was made with.
      await waitFor(() => hooks.of('letter.created').length === 1, 5000, 'the earlier delivery');
      const sent = hooks.of('letter.created')[0];
      expect(sent?.body).toBe('{"left":"by an earlier version"}');
      expect(sent?.headers['parley-delivery']).toBe('00000000-0000-4000-8000-0000000e0001');
      expect(verifySignature(sent?.headers['parley-signature'], sent?.body ?? '', 'whsec_earlier')).toBe(true);
      // A new one is recorded beside it in webhooks.db; parley.db keeps none.
      await upgraded.post('/api/webhook/test', { id: hookId }, { token });
      await waitFor(() => hooks.of('ping').length === 1, 5000, 'ping');
      await waitFor(
        async () => {
          const list = await deliveriesOf(hookId, upgraded, token);
          return list.length === 2 && list.every((delivery) => delivery.status === 'delivered');
        },
        5000,
        'both delivered in the log',
      );
      expect(await upgraded.storage.db.selectFrom('webhook_deliveries').select('id').execute()).toEqual([]);
      expect(existsSync(join(upgraded.config.dataDir, 'webhooks.db'))).toBe(true);
    } finally {
      await upgraded.close();
      await hooks.close();
    }
  });
});

describe.skipIf(backends.postgres)('the messages table as the outbox of message.created (SQLite)', () => {
  // A server of its own: the file's server is closed by the restart test.
  let own: TestServer;
  let ownAdmin: string;
  beforeAll(async () => {
    own = await startTestServer(FAST);
    ownAdmin = await own.login();
  });
  afterAll(() => own.close());
  afterEach(async () => {
    const list = await own.get<{ list: Webhook[] }>('/api/webhook/getList', { token: ownAdmin });
    const ids = list.body.data.list.map((hook) => hook.id);
    if (ids.length > 0) await own.post('/api/webhook/doDelete', { ids }, { token: ownAdmin });
  });

  /** The messages the receiver got for the webhook made with `secret`, in the order they came. */
  const toldTo = (secret: string) =>
    receiver
      .of('message.created')
      .filter((request) => verifySignature(request.headers['parley-signature'], request.body, secret))
      .map((request) => (JSON.parse(request.body) as { data: { message: Message } }).data.message.msg);

  it('queues nothing in the message’s transaction, and tells a webhook only the messages stored once it takes them', async () => {
    receiver = await WebhookReceiver.start();
    const first = await makeWebhook(['message.created'], `${receiver.url}/first`, own, ownAdmin);
    const v = await visitor(own);
    await v.say('one');
    await waitFor(() => toldTo(first.secret).includes('one'), 5000, 'one told');
    expect(await own.storage.db.selectFrom('webhook_events').select('id').where('event', '=', 'message.created').execute()).toEqual([]);
    // Stored while the webhook is disabled: never told to it, enabled again or not.
    const off = await own.post(
      '/api/webhook/doEdit',
      { id: first.id, url: first.url, events: first.events, enabled: false },
      { token: ownAdmin },
    );
    expect(off.status).toBe(200);
    await v.say('two');
    const on = await own.post(
      '/api/webhook/doEdit',
      { id: first.id, url: first.url, events: first.events, enabled: true },
      { token: ownAdmin },
    );
    expect(on.status).toBe(200);
    // A webhook made now is told what comes after it, not the visitor's earlier messages.
    const second = await makeWebhook(['message.created'], `${receiver.url}/second`, own, ownAdmin);
    await v.say('three');
    await waitFor(() => toldTo(first.secret).includes('three') && toldTo(second.secret).includes('three'), 5000, 'three told to both');
    expect(toldTo(first.secret)).toEqual(['one', 'three']);
    expect(toldTo(second.secret)).toEqual(['three']);
    // The same from a reader that starts behind all of it (its own log): who is told does not hang on
    // how far the delivery process had read when the webhooks changed.
    const dir = mkdtempSync(join(tmpdir(), 'parley-told-'));
    const behind = new WebhookRepository(own.storage.db, 'sqlite', await openSqliteLog(dir));
    const told: TakenEvent[] = [];
    for (let look = 0; look < 5000; look++) {
      const { events } = await behind.log.db.transaction().execute((tx) => behind.takeQueue(tx, 200));
      if (events.length === 0 && !(await behind.anyQueued())) break;
      told.push(...events);
    }
    await behind.log.close();
    rmSync(dir, { recursive: true, force: true });
    const msgs = new Map(
      (await own.storage.db.selectFrom('messages').select(['id', 'msg']).execute()).map((row) => [`message:${row.id}`, row.msg]),
    );
    const toldBehind = (id: number) =>
      told
        .filter((entry) => entry.event === 'message.created' && entry.webhookIds.includes(id))
        .map((entry) => msgs.get(entry.source ?? ''));
    expect(toldBehind(first.id)).toEqual(['one', 'three']);
    expect(toldBehind(second.id)).toEqual(['three']);
    v.socket.close();
  });

  it('tells messages and queued events in the order they committed, however a look’s reads are cut', async () => {
    receiver = await WebhookReceiver.start();
    const hook = await makeWebhook(['message.created', 'letter.created'], `${receiver.url}/order`, own, ownAdmin);
    const v = await visitor(own);
    const { id: visitorId } = await own.storage.db
      .selectFrom('visitors')
      .select('id')
      .where('public_id', '=', v.id)
      .executeTakeFirstOrThrow();
    // A reader of its own (its own log, so its own progress) beside the server's thread.
    const dir = mkdtempSync(join(tmpdir(), 'parley-told-'));
    const repo = (log: WebhookLog) => new WebhookRepository(own.storage.db, 'sqlite', log);
    const probe = repo(await openSqliteLog(dir));
    let seq = 10_000;
    const message = (tx: DbOrTx, name: string, role = 'visitor') =>
      tx
        .insertInto('messages')
        .values({
          visitor_id: visitorId,
          seq: seq++,
          only_id: `told-${name}-${randomBytes(4).toString('hex')}`,
          role,
          type: 'text',
          msg: name,
          nickname: '',
          service_id: null,
          withdrawn: 0,
          created_at: new Date().toISOString(),
        })
        .execute();
    const event = (tx: DbOrTx, name: string) =>
      probe.queueEvent(tx, {
        event_id: randomUUID(),
        event: 'letter.created',
        order_key: null,
        source: null,
        body: JSON.stringify({ told: name }),
        webhook_ids: JSON.stringify([hook.id]),
        created_at: new Date().toISOString(),
      });
    // Commits: m1 | e1 | m2 e2 | e3 | m3 tip m4 | e4 e5 | m5 m6 | e6
    const commits: [kind: 'm' | 'e' | 'tip', name: string][][] = [
      [['m', 'm1']],
      [['e', 'e1']],
      [
        ['m', 'm2'],
        ['e', 'e2'],
      ],
      [['e', 'e3']],
      [
        ['m', 'm3'],
        ['tip', 'tip'],
        ['m', 'm4'],
      ],
      [
        ['e', 'e4'],
        ['e', 'e5'],
      ],
      [
        ['m', 'm5'],
        ['m', 'm6'],
      ],
      [['e', 'e6']],
    ];
    for (const commit of commits)
      await own.storage.db.transaction().execute(async (tx) => {
        for (const [kind, name] of commit) {
          if (kind === 'e') await event(tx, name);
          else await message(tx, name, kind === 'tip' ? 'tip' : 'visitor');
        }
      });
    const expected = commits
      .flat()
      .filter(([kind]) => kind !== 'tip')
      .map(([, name]) => name);
    const bodies = new Map(
      (await own.storage.db.selectFrom('messages').select(['id', 'msg']).where('visitor_id', '=', visitorId).execute()).map((row) => [
        `message:${row.id}`,
        row.msg,
      ]),
    );
    const nameOf = (told: TakenEvent) =>
      told.event === 'letter.created' ? (JSON.parse(told.body) as { told?: string }).told : bodies.get(told.source ?? '');
    for (const limit of [1, 2, 3, 200]) {
      const reader = limit === 200 ? probe : repo(await openSqliteLog(mkdtempSync(join(tmpdir(), 'parley-told-'))));
      const told: TakenEvent[] = [];
      for (let look = 0; look < 5000; look++) {
        const { events } = await reader.log.db.transaction().execute((tx) => reader.takeQueue(tx, limit));
        if (events.length === 0 && !(await reader.anyQueued())) break;
        told.push(...events);
      }
      const mine = told.map(nameOf).filter((name): name is string => name !== undefined && /^(m|e)\d$/.test(name));
      expect(mine, `read ${limit} at a time`).toEqual(expected);
      for (const entry of told.filter((entry) => entry.event === 'message.created')) {
        expect(entry.webhookIds).toEqual([hook.id]);
        expect(entry.order_key).toBe(`visitor:${v.id}`);
      }
      if (reader !== probe) await reader.log.close();
    }
    await probe.log.close();
    rmSync(dir, { recursive: true, force: true });
    v.socket.close();
  });
});

describe.runIf(process.platform === 'linux')('the delivery process', () => {
  /** A thread's scheduling as the system reports it (`/proc/…/stat`: nice is field 19, the policy field 41). */
  function schedulingOf(statFile: string): { policy: number; nice: number } {
    const fields = procStat(statFile);
    return { nice: Number(fields[19 - 3]), policy: Number(fields[41 - 3]) };
  }
  /** The scheduling of every thread of process `pid`. */
  const threadsOf = (pid: number | 'self') =>
    readdirSync(`/proc/${pid}/task`).map((task) => schedulingOf(`/proc/${pid}/task/${task}/stat`));
  /** The delivery process's id, once it has said it started. */
  async function deliveryProcessOf(on: TestServer): Promise<number> {
    const started = () => on.logs.find((line) => line.msg === 'webhook delivery process started');
    await waitFor(() => started() !== undefined, 10_000, 'the delivery process started');
    return Number(started()?.deliveryPid);
  }
  const SCHED_OTHER = 0;
  const SCHED_IDLE = 5;

  it('gives way to the chat at once (SCHED_IDLE, every thread of it) by default, or takes the nice value set; it ends with the server', async () => {
    for (const [env, expected] of [
      [{}, { policy: SCHED_IDLE }],
      [{ WEBHOOK_THREAD_NICE: '7' }, { policy: SCHED_OTHER, nice: 7 }],
    ] as const) {
      const own = await startTestServer({ ...FAST, LOG_LEVEL: 'info', ...env });
      let pid = 0;
      try {
        const token = await own.login();
        const hook = await makeWebhook(['message.created'], undefined, own, token);
        expect((await own.post('/api/webhook/test', { id: hook.id }, { token })).status).toBe(200);
        pid = await deliveryProcessOf(own);
        expect(pid).not.toBe(process.pid);
        // The test event went out from it.
        await waitFor(() => receiver.of('ping').length === 1, 10_000, 'the test event');
        const threads = threadsOf(pid);
        expect(threads.length).toBeGreaterThan(1);
        for (const thread of threads) expect(thread).toMatchObject(expected);
        // The chat's process (the server here runs in the test's) is left as it was, every thread of it.
        for (const thread of threadsOf('self')) expect(thread.policy).toBe(SCHED_OTHER);
      } finally {
        await own.close();
      }
      expect(running(pid)).toBe(false);
    }
  });
});

describe('the retry schedule', () => {
  it('makes at least 8 attempts over at least 24 hours at the default base, whatever the jitter', () => {
    const DAY_MS = 24 * 3600_000;
    for (const jitter of [0, 0.5, 1]) {
      const waits = Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => retryWait(i + 1, 10_000, () => jitter));
      expect(MAX_ATTEMPTS).toBeGreaterThanOrEqual(8);
      expect(waits.reduce((sum, wait) => sum + wait, 0)).toBeGreaterThanOrEqual(DAY_MS);
      // Growing, never a tight loop, and no wait beyond half a day and its jitter.
      for (let i = 1; i < waits.length; i += 1) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1] ?? 0);
      expect(Math.max(...waits)).toBeLessThanOrEqual(12 * 3600_000 * 1.2);
    }
    // The jitter spreads senders: two draws differ.
    expect(retryWait(3, 10_000, () => 0)).not.toBe(retryWait(3, 10_000, () => 1));
  });
});

/**
 * The events written for the webhook, still queued or already made into deliveries (one entry each); with
 * `mentioning`, only those whose body names it (a visitor's public id: the server's other conversations,
 * earlier tests', may write events of their own meanwhile).
 */
async function queuedOrDeliveredDb(webhookId: number, mentioning?: string): Promise<string[]> {
  const queued = await stillQueued();
  const named = (row: { body: string }) => mentioning === undefined || row.body.includes(mentioning);
  // The two reads are not one snapshot: the relay may turn an event read in the queue into its delivery
  // before the second read, so an event is counted once by its id, wherever it was seen.
  const events = new Map<string, string>();
  for (const row of queued.filter((row) => (JSON.parse(row.webhook_ids) as number[]).includes(webhookId)).filter(named))
    events.set(row.event_id, row.event);
  for (const row of (await deliveriesOfDb(webhookId)).filter(named)) events.set(row.event_id, row.event);
  return [...events.values()];
}

async function deliveriesOfDb(webhookId: number) {
  return (await logOf()).selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('id', 'desc').execute();
}

// Two processes of one deployment share a database server: this runs where the CI variables provide one
// (SQLite serves one process by design).
describe.runIf(backends.postgres && backends.redis)('webhooks with two server processes', () => {
  const schema = `wh_${randomBytes(6).toString('hex')}`;
  // One deployment's processes share the sealing key, as they share the database.
  const shared = { ...FAST, DATABASE_SCHEMA: schema, REDIS_PREFIX: `parley-${schema}`, SECRET_KEY: randomBytes(24).toString('hex') };
  let a: TestServer;
  let b: TestServer;
  let hooks: WebhookReceiver;

  beforeAll(async () => {
    // The worker process runs from the bundle.
    await buildOnce();
    a = await startTestServer(shared);
    b = await startTestServer(shared);
    hooks = await WebhookReceiver.start();
  }, 180_000);
  afterAll(async () => {
    await a.close();
    await b.close();
    await hooks.close();
    await dropSchema(schema);
  });

  it('delivers each event once, whichever process queued it', async () => {
    const token = await a.login();
    const made = await a.post<WebhookWithSecret>(
      '/api/webhook/doEdit',
      { url: hooks.url, events: ['message.created'], enabled: true },
      { token },
    );
    expect(made.status).toBe(200);
    const va = await visitor(a);
    const vb = await visitor(b);
    for (let i = 0; i < 15; i += 1) {
      await va.say(`a${i}`);
      await vb.say(`b${i}`);
    }
    await waitFor(() => hooks.of('message.created').length >= 30, 20_000, 'thirty deliveries');
    // Every delivery written as delivered and nothing left queued: no process will send anything more.
    await waitFor(
      async () =>
        (await a.storage.db.selectFrom('webhook_events').select('id').execute()).length === 0 &&
        (await a.storage.db.selectFrom('webhook_deliveries').select('status').execute()).filter((row) => row.status === 'delivered')
          .length === 30,
      10_000,
      'every delivery written',
    );
    const ids = hooks.of('message.created').map((request) => request.headers['parley-delivery']);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    va.socket.close();
    vb.socket.close();
  });

  it('leaves the deliveries to a worker process with WEBHOOK_DELIVERY=worker, which the bus wakes', async () => {
    const own = `wk_${randomBytes(6).toString('hex')}`;
    const env = { ...shared, DATABASE_SCHEMA: own, REDIS_PREFIX: `parley-${own}` };
    const web = await startTestServer({ ...env, WEBHOOK_DELIVERY: 'worker' });
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-worker-'));
    let worker: ServerProcess | undefined;
    try {
      const token = await web.login();
      await web.post('/api/webhook/doEdit', { url: hooks.url, events: ['message.created'], enabled: true }, { token });
      let woken = 0;
      web.bus.subscribe((event) => {
        if (event.type === 'webhooks.queued') woken += 1;
      });
      const guest = await visitor(web);
      for (let i = 0; i < 5; i += 1) await guest.say(`w${i}`);
      await waitFor(() => woken > 0, 5000, 'the workers woken');
      // The server sent none of them itself: they wait in the queue for a worker.
      expect(await web.storage.db.selectFrom('webhook_events').select('id').execute()).toHaveLength(5);
      const told = () =>
        hooks
          .of('message.created')
          .map((request) => (JSON.parse(request.body) as { data: { message: Message } }).data.message.msg)
          .filter((msg) => msg.startsWith('w'));
      expect(told()).toEqual([]);
      // A worker that looks on its own only once a minute: what it sends at once, the bus woke it for.
      worker = await spawnWebhookWorker(dataDir, own, { ...env, WEBHOOK_POLL_MS: '60000' });
      await waitFor(() => told().length === 5, 10_000, 'the queued events sent by the worker');
      await guest.say('w5');
      await waitFor(() => told().length === 6, 5000, 'a new event sent at once');
      expect(told()).toEqual(['w0', 'w1', 'w2', 'w3', 'w4', 'w5']);
      guest.socket.close();
      expect(await worker.stop()).toBe(0);
    } finally {
      if (worker?.child.exitCode === null) await worker.stop();
      await web.close();
      rmSync(dataDir, { recursive: true, force: true });
      await dropSchema(own);
    }
  });
});

it('refuses WEBHOOK_DELIVERY=worker on SQLite, whose data directory serves one process', () => {
  expect(() => loadConfig({ DATA_DIR: tmpdir(), WEBHOOK_DELIVERY: 'worker' }, APP_ROOT)).toThrow(
    /WEBHOOK_DELIVERY=worker needs DATABASE_URL/,
  );
});
