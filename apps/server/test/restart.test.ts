import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { buildOnce, dropSchema, running, spawnServer } from './processes.js';
import { TestSocket } from './sockets.js';
import { WebhookReceiver } from './webhook-receiver.js';

const dataDir = mkdtempSync(join(tmpdir(), 'parley-kill-'));
const schema = `k_${randomBytes(6).toString('hex')}`;

/** The built server, run as a process of its own so that it can be killed outright. */
const run = () => spawnServer('apps/server/dist/main.js', dataDir, schema, { ADMIN_PASSWORD: 'admin-pass-1' });
/** The same, with a visitor's message limit out of the way of a burst of hundreds. */
const runUnlimited = () =>
  spawnServer('apps/server/dist/main.js', dataDir, schema, {
    ADMIN_PASSWORD: 'admin-pass-1',
    RATE_LIMITS: 'visitorMessage.token=100000/10,visitorMessage.address=100000/10',
  });

beforeAll(buildOnce, 180_000);

afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await dropSchema(schema);
});

const post = async <T>(url: string, body: unknown): Promise<{ status: number; data: T }> => {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await response.json()) as { data: T };
  return { status: response.status, data: json.data };
};

/** Every stored message of a visitor, read page by page: one answer holds at most 200 messages. */
async function readAll(url: string, token: string): Promise<Message[]> {
  const list: Message[] = [];
  for (;;) {
    const stored = await fetch(`${url}/api/visitor/messages?YQToken=${token}&afterSeq=${list.at(-1)?.seq ?? 0}`);
    const page = ((await stored.json()) as { data: { list: Message[] } }).data.list;
    if (page.length === 0) return list;
    list.push(...page);
  }
}

/** The administrator's console socket, past the hello (0000) and its answer (5000). */
async function openAgent(url: string): Promise<TestSocket> {
  const login = await post<{ token: string }>(`${url}/api/login`, { username: 'admin', password: 'admin-pass-1' });
  if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
  const socket = await TestSocket.open(`${url.replace('http', 'ws')}/ws/agent?token=${encodeURIComponent(login.data.token)}`);
  await socket.frame('0000');
  socket.send({ code: '5000', type: 'service', uuid: '' });
  return socket;
}

/** Seqs run 1, 2, 3… with no gap and no repeat. */
const expectGapless = (messages: Message[]) =>
  expect(messages.map((message) => message.seq)).toEqual(Array.from({ length: messages.length }, (_, index) => index + 1));

describe('a server killed with SIGKILL', () => {
  it('keeps every acknowledged message, and seq continues with no gap or duplicate', async () => {
    const first = await run();
    const init = await post<{ YQToken: string }>(`${first.url}/api/visitor/init`, { url: 'https://shop.example/' });
    const token = init.data.YQToken;
    const acknowledged: Message[] = [];
    // Keep sending while the process dies; what was acknowledged must survive.
    const sending = (async () => {
      for (let index = 0; index < 400; index += 1) {
        try {
          const sent = await post<Message>(`${first.url}/api/visitor/message`, {
            YQToken: token,
            msg: `message ${index}`,
            onlyID: `kill-${index}`,
          });
          if (sent.status === 200) acknowledged.push(sent.data);
        } catch {
          return index;
        }
      }
      return 400;
    })();
    // Kill it mid-stream, once a good number of sends have been acknowledged.
    const deadline = Date.now() + 20_000;
    while (acknowledged.length < 20 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    first.child.kill('SIGKILL');
    const stoppedAt = await sending;
    expect(acknowledged.length).toBeGreaterThan(5);

    const second = await run();
    const stored = await fetch(`${second.url}/api/visitor/messages?YQToken=${token}&afterSeq=0`);
    const { data } = (await stored.json()) as { data: { list: Message[] } };
    const seqs = data.list.map((message) => message.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));
    for (const message of acknowledged) expect(data.list.find((item) => item.onlyID === message.onlyID)?.seq).toBe(message.seq);

    // A retry of the send that was cut off is stored once; the next one continues the sequence.
    const retry = await post<Message>(`${second.url}/api/visitor/message`, {
      YQToken: token,
      msg: `message ${stoppedAt}`,
      onlyID: `kill-${stoppedAt}`,
    });
    const next = await post<Message>(`${second.url}/api/visitor/message`, {
      YQToken: token,
      msg: 'after restart',
      onlyID: 'after-restart',
    });
    expect(next.data.seq).toBe(Math.max(retry.data.seq, seqs.length) + 1);
    await second.stop();
  }, 90_000);

  it('keeps every message acknowledged over the socket (8101); resending the rest stores each once', async () => {
    const first = await runUnlimited();
    const init = await post<{ YQToken: string }>(`${first.url}/api/visitor/init`, { url: 'https://shop.example/' });
    const token = init.data.YQToken;
    const total = 300;
    const acknowledged: Message[] = [];
    const socket = new WebSocket(`${first.url.replace('http', 'ws')}/ws/visitor?YQToken=${token}`);
    socket.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as { code: string; data: Message };
      if (frame.code === '8101') acknowledged.push(frame.data);
    });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.once('error', () => undefined);
    await new Promise((resolve) => socket.once('open', resolve));
    // Every send goes out at once: the server stores them one after another while it is killed.
    for (let index = 0; index < total; index += 1) {
      socket.send(JSON.stringify({ code: '8100', data: { msg: `socket ${index}`, onlyID: `ws-${index}` } }));
    }
    const deadline = Date.now() + 20_000;
    while (acknowledged.length < 20 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    first.child.kill('SIGKILL');
    await closed;
    expect(acknowledged.length).toBeGreaterThan(5);

    const second = await runUnlimited();
    const read = () => readAll(second.url, token);
    const kept = await read();
    const seqs = kept.map((message) => message.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));
    for (const message of acknowledged) expect(kept.find((item) => item.onlyID === message.onlyID)?.seq).toBe(message.seq);

    // The widget resends what was not acknowledged, over a new socket; nothing is stored twice.
    const again = new WebSocket(`${second.url.replace('http', 'ws')}/ws/visitor?YQToken=${token}`);
    const answered = new Set<string>();
    const all = new Promise<void>((resolve) =>
      again.on('message', (raw) => {
        const frame = JSON.parse(raw.toString()) as { code: string; data: { onlyID: string; msg: string } };
        if (frame.code === '8102') throw new Error(`resend refused: ${frame.data.msg}`);
        if (frame.code === '8101') answered.add(frame.data.onlyID);
        if (answered.size === total) resolve();
      }),
    );
    await new Promise((resolve) => again.once('open', resolve));
    for (let index = 0; index < total; index += 1) {
      again.send(JSON.stringify({ code: '8100', data: { msg: `socket ${index}`, onlyID: `ws-${index}` } }));
    }
    await all;
    again.close();
    const sent = (await read()).filter((message) => message.role === 'user').map((message) => message.onlyID);
    expect(sent.sort()).toEqual(Array.from({ length: total }, (_, index) => `ws-${index}`).sort());
    await second.stop();
  }, 90_000);

  it('keeps every message an agent had acknowledged over its socket (8101); resending the rest stores each once, seq has no gap', async () => {
    const first = await runUnlimited();
    const init = await post<{ YQToken: string; id: string }>(`${first.url}/api/visitor/init`, { url: 'https://shop.example/' });
    const { YQToken: credential, id: visitorId } = init.data;
    const question = await post<Message>(`${first.url}/api/visitor/message`, { YQToken: credential, msg: 'help?', onlyID: 'question' });
    expect(question.status).toBe(200);
    const total = 300;
    const agentSend = (index: number) => ({ code: '8100', data: { YQToken: visitorId, msg: `agent ${index}`, onlyID: `agent-${index}` } });
    const framesOf = (socket: TestSocket, code: string) =>
      socket.frames.filter((frame) => (frame as { code: string }).code === code) as { code: string; data: Message }[];

    const agent = await openAgent(first.url);
    // Every send goes out at once (the first takes the waiting visitor): the server stores them while it is killed.
    for (let index = 0; index < total; index += 1) agent.send(agentSend(index));
    await agent.until(() => framesOf(agent, '8101').length >= 20, 20_000);
    first.child.kill('SIGKILL');
    await agent.closed();
    const acknowledged = framesOf(agent, '8101').map((frame) => frame.data);
    // The kill came mid-stream: some sends were stored, the rest were still on their way.
    expect(acknowledged.length).toBeLessThan(total);
    // Nothing was refused before the kill: the pipelined sends of one agent are each stored in turn.
    expect(framesOf(agent, '8102')).toEqual([]);

    const second = await runUnlimited();
    const kept = await readAll(second.url, credential);
    expectGapless(kept);
    for (const message of acknowledged) {
      expect(kept.filter((item) => item.onlyID === message.onlyID)).toEqual([
        expect.objectContaining({ seq: message.seq, role: 'service' }),
      ]);
    }

    // The console resends what was not acknowledged, over a new socket; nothing is stored twice.
    const again = await openAgent(second.url);
    for (let index = 0; index < total; index += 1) again.send(agentSend(index));
    await again.until(() => framesOf(again, '8102')[0] || framesOf(again, '8101').length === total, 30_000);
    expect(framesOf(again, '8102')).toEqual([]);
    // A resend of a stored message is answered with it as it was stored.
    for (const message of acknowledged) {
      expect(framesOf(again, '8101').find((frame) => frame.data.onlyID === message.onlyID)?.data).toEqual(message);
    }
    again.close();
    const stored = await readAll(second.url, credential);
    expectGapless(stored);
    const sent = stored.filter((message) => message.role === 'service').map((message) => message.onlyID);
    expect(sent.sort()).toEqual(Array.from({ length: total }, (_, index) => `agent-${index}`).sort());
    expect(stored.filter((message) => message.onlyID === 'question')).toHaveLength(1);
    await second.stop();
  }, 90_000);

  it('tells a webhook of every message it stored, once each, and of none it did not', async () => {
    const receiver = await WebhookReceiver.start();
    const withHooks = () =>
      spawnServer('apps/server/dist/main.js', dataDir, schema, {
        ADMIN_PASSWORD: 'admin-pass-1',
        RATE_LIMITS: 'visitorMessage.token=100000/10,visitorMessage.address=100000/10',
        OUTBOUND_ALLOW: '127.0.0.1',
        WEBHOOK_POLL_MS: '50',
        // A delivery the kill cut off stays claimed by the dead process for three timeouts and 30 s.
        WEBHOOK_TIMEOUT_MS: '700',
      });
    const first = await withHooks();
    const login = await post<{ token: string }>(`${first.url}/api/login`, { username: 'admin', password: 'admin-pass-1' });
    const made = await fetch(`${first.url}/api/webhook/doEdit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${login.data.token}` },
      body: JSON.stringify({ url: receiver.url, events: ['message.created'], enabled: true }),
    });
    expect(made.status).toBe(200);
    const init = await post<{ YQToken: string }>(`${first.url}/api/visitor/init`, { url: 'https://shop.example/' });
    const token = init.data.YQToken;
    let acknowledged = 0;
    const socket = new WebSocket(`${first.url.replace('http', 'ws')}/ws/visitor?YQToken=${token}`);
    socket.on('message', (raw) => {
      if ((JSON.parse(raw.toString()) as { code: string }).code === '8101') acknowledged += 1;
    });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.once('error', () => undefined);
    await new Promise((resolve) => socket.once('open', resolve));
    // The kill lands while messages commit one after another, each with its event.
    for (let index = 0; index < 300; index += 1) {
      socket.send(JSON.stringify({ code: '8100', data: { msg: `hooked ${index}`, onlyID: `hook-${index}` } }));
    }
    const deadline = Date.now() + 20_000;
    while (acknowledged < 20 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    const deliveringPid = () => Number(/"deliveryPid":(\d+)[^\n]*"msg":"webhook delivery process started"/.exec(first.output())?.[1] ?? 0);
    while (deliveringPid() === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    const delivering = deliveringPid();
    expect(running(delivering)).toBe(true);
    first.child.kill('SIGKILL');
    await closed;
    // Its delivery process goes with it, whatever was under way: two would send from one log.
    const gone = Date.now() + 10_000;
    while (running(delivering) && Date.now() < gone) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(running(delivering)).toBe(false);

    const second = await withHooks();
    try {
      const stored = (await readAll(second.url, token)).filter((message) => message.onlyID.startsWith('hook-'));
      expect(stored.length).toBeGreaterThanOrEqual(acknowledged);
      const toldOf = () => {
        // A delivery cut off by the kill goes out again under its own id: told twice is one delivery.
        const byMessage = new Map<string, Set<string>>();
        for (const request of receiver.of('message.created')) {
          const message = (JSON.parse(request.body) as { data: { message: Message } }).data.message;
          const deliveries = byMessage.get(message.onlyID) ?? new Set<string>();
          deliveries.add(String(request.headers['parley-delivery']));
          byMessage.set(message.onlyID, deliveries);
        }
        return byMessage;
      };
      const deadline = Date.now() + 60_000;
      while (toldOf().size < stored.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const told = toldOf();
      expect([...told.keys()].sort()).toEqual(stored.map((message) => message.onlyID).sort());
      for (const deliveries of told.values()) expect(deliveries.size).toBe(1);
    } finally {
      await second.stop();
      await receiver.close();
    }
  }, 150_000);
});
