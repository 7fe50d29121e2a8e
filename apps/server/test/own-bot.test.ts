import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { Message } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { framesOf, type TestVisitor, visitor } from './chat-harness.js';
import { APP_ROOT, createAgent, startTestServer, type TestServer } from './harness.js';

/**
 * The README's "bot of one's own" (examples/own-bot/bot.mjs), run as it is: a webhook on
 * `message.created` and an API token let a program of the site's answer visitors and hand one to a
 * person; the agents see which messages a program sent.
 */
let server: TestServer;
let bot: ChildProcess;
let admin: string;

beforeAll(async () => {
  server = await startTestServer({ OUTBOUND_ALLOW: '127.0.0.1', WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_BASE_MS: '100' });
  admin = await server.login();
  const role = await server.post('/api/role/doEdit', { name: 'Bot', permissions: ['setPermissions:access'] }, { token: admin });
  expect(role.status).toBe(200);
  const account = await createAgent(server, admin, { username: 'shopbot', role: 'Bot' });
  const session = account.token ?? '';
  const token = await server.post<{ token: string }>(
    '/api/apiToken/doEdit',
    { name: 'Shop bot', permissions: ['setPermissions:access'] },
    { token: session },
  );
  expect(token.status).toBe(200);

  bot = spawn(process.execPath, [join(APP_ROOT, 'examples/own-bot/bot.mjs')], {
    env: { ...process.env, PARLEY_URL: server.url, PARLEY_TOKEN: token.body.data.token, WEBHOOK_SECRET: 'pending', PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The webhook's secret is known once it is made, and the bot's port once it listens: the bot starts
  // again with both (the first start only finds a free port).
  const port = await listeningPort(bot);
  bot.kill();
  const hook = await server.post<{ secret: string }>(
    '/api/webhook/doEdit',
    { url: `http://127.0.0.1:${port}/`, events: ['message.created', 'conversation.ended'], enabled: true },
    { token: session },
  );
  expect(hook.status).toBe(200);
  bot = spawn(process.execPath, [join(APP_ROOT, 'examples/own-bot/bot.mjs')], {
    env: {
      ...process.env,
      PARLEY_URL: server.url,
      PARLEY_TOKEN: token.body.data.token,
      WEBHOOK_SECRET: hook.body.data.secret,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await listeningPort(bot);
});
afterAll(async () => {
  bot?.kill();
  await server?.close();
});

async function listeningPort(child: ChildProcess): Promise<number> {
  let out = '';
  for await (const chunk of child.stdout ?? []) {
    out += String(chunk);
    const match = /bot listening on (\d+)/.exec(out);
    if (match) return Number(match[1]);
  }
  await once(child, 'exit');
  throw new Error(`the bot did not start: ${out}`);
}

/** The agent messages the visitor's socket received, in order. */
const answers = (guest: TestVisitor) =>
  framesOf(guest.socket, '8005')
    .map((frame) => frame.data as Message)
    .filter((message) => message.role === 'service');

describe('a bot of one’s own (examples/own-bot)', () => {
  it('answers a waiting visitor, hands them to a person on request, and its messages say it sent them', async () => {
    const guest = await visitor(server);
    await guest.say('What are your opening hours?');
    await guest.socket.until(() => answers(guest).find((message) => message.msg.includes('9:00 to 18:00')));
    const [first] = answers(guest);
    expect(first).toMatchObject({ nickname: 'shopbot', via: 'Shop bot' });

    // The agents read the same: the message says which program sent it.
    const held = await server.get<{ list: Message[] }>(`/api/talk/messages?YQToken=${guest.id}`, { token: admin });
    expect(held.body.data.list.find((message) => message.role === 'service')).toMatchObject({ via: 'Shop bot' });

    // Taken by the bot's answer, the visitor waits again once handed on: a new place in the queue.
    const queued = framesOf(guest.socket, '2001').length;
    await guest.say('I would like to talk to a human please');
    await guest.socket.until(() => framesOf(guest.socket, '2001')[queued]);
    const visitors = await server.get<{ list: { YQToken: string; state: string }[] }>('/api/talk/userList', { token: admin });
    expect(visitors.body.data.list.find((item) => item.YQToken === guest.id)?.state).toBe('wait');

    // Handed over, the visitor's next words are for the person, not the bot: once the bot has heard them
    // (delivered), and has answered a later visitor (it works in the order it hears), it said nothing.
    const before = answers(guest).length;
    const [hook] = (await server.get<{ list: { id: number }[] }>('/api/webhook/getList', { token: admin })).body.data.list;
    const since = new Date().toISOString();
    await guest.say('Are you there?');
    await expect
      .poll(async () => {
        const log = await server.get<{ list: { event: string; status: string; createdAt: string }[] }>(
          `/api/webhook/deliveries?id=${hook?.id}&pageSize=100`,
          { token: admin },
        );
        return log.body.data.list.some(
          (item) => item.event === 'message.created' && item.status === 'delivered' && item.createdAt >= since,
        );
      })
      .toBe(true);
    const later = await visitor(server);
    await later.say('How long does shipping take?');
    await later.socket.until(() => answers(later).find((message) => message.msg.includes('2 to 4 days')));
    expect(answers(guest)).toHaveLength(before);
  });

  it('refuses an event whose signature is not Parley’s', async () => {
    const hooks = await server.get<{ list: { url: string }[] }>('/api/webhook/getList', { token: admin });
    const url = hooks.body.data.list[0]?.url ?? '';
    const forged = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'parley-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
      body: JSON.stringify({ id: 'x', type: 'message.created', createdAt: new Date().toISOString(), data: {} }),
    });
    expect(forged.status).toBe(401);
  });
});
