import type { Message, VisitorInit, WidgetSettings } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, uuidOf } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';
import { TestSocket } from './sockets.js';

let server: TestServer;
let admin: string;

/** A server whose trusted proxy is the test client, so each visitor's address is the one it forwards. */
async function startServer(): Promise<void> {
  server = await startTestServer({ TRUST_PROXY: '127.0.0.1' });
  admin = await server.login();
  // The administrator takes no conversations here: routing is between the agents the tests connect.
  await server.post('/api/index/state', { state: '1' }, { token: admin });
}

const SHENZHEN = '120.24.78.68';
const NANJING = '114.114.114.114';
const HANGZHOU = '223.5.5.5';
const GOOGLE_DNS = '8.8.8.8';

async function init(address: string, lang = 'en') {
  const response = await server.post<VisitorInit>(
    '/api/visitor/init',
    { url: 'https://shop.example/', lang },
    { headers: { 'x-forwarded-for': address } },
  );
  expect(response.status).toBe(200);
  return response.body.data;
}

const say = (credential: string, msg: string) =>
  server.post<Message>('/api/visitor/message', { YQToken: credential, msg, onlyID: `m-${Math.random().toString(36).slice(2)}` });

async function saveRules(rules: unknown[]) {
  const saved = await server.post('/api/settings/region', { rules }, { token: admin });
  expect(saved.status).toBe(200);
}

describe('region rules, applied by the region looked up at init', () => {
  beforeAll(startServer);
  afterAll(() => server.close());

  it('a saved page reaches each open widget with its own region’s rule (2020)', async () => {
    await saveRules([{ codes: ['440000'], action: 'block', text: 'Not served in this region' }]);
    const blocked = await init(SHENZHEN);
    const served = await init(NANJING);
    const ws = server.url.replace('http', 'ws');
    const sockets = [
      await TestSocket.open(`${ws}/ws/visitor?YQToken=${blocked.YQToken}&lang=en`),
      await TestSocket.open(`${ws}/ws/visitor?YQToken=${served.YQToken}&lang=en`),
    ];
    const before = sockets.map((socket) => framesOf(socket, '2020').length);
    const saved = await server.post('/api/settings/windowStyle', { title: 'Acme help' }, { token: admin });
    expect(saved.status).toBe(200);
    const pushed = await Promise.all(sockets.map((socket, index) => socket.until(() => framesOf(socket, '2020')[before[index] ?? 0])));
    const [toBlocked, toServed] = pushed.map((frame) => frame.data as WidgetSettings);
    expect(toBlocked?.region).toEqual({ blocked: true, text: 'Not served in this region' });
    expect(toServed?.region).toEqual({ blocked: false, text: '' });
    for (const socket of sockets) socket.close();
    await saveRules([]);
  });

  it('block: a province rule covers its cities; the widget is told, and the server refuses the visitor’s messages', async () => {
    await saveRules([{ codes: ['440000'], action: 'block', text: 'Not served in this region' }]);
    const blocked = await init(SHENZHEN);
    expect(blocked.settings.region).toEqual({ blocked: true, text: 'Not served in this region' });
    expect(blocked.settings.online).toBe(false);
    const refused = await say(blocked.YQToken, 'hello?');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe(403);

    // Visitors elsewhere are untouched.
    const elsewhere = await init(NANJING);
    expect(elsewhere.settings.region).toEqual({ blocked: false, text: '' });
    expect((await say(elsewhere.YQToken, 'hello')).status).toBe(200);

    // Lifting the rule lets the same visitor chat at its next init.
    await saveRules([]);
    const again = await server.post<VisitorInit>(
      '/api/visitor/init',
      { url: 'https://shop.example/', YQToken: blocked.YQToken },
      { headers: { 'x-forwarded-for': SHENZHEN } },
    );
    expect(again.body.data.settings.region.blocked).toBe(false);
    expect((await say(blocked.YQToken, 'hello again')).status).toBe(200);
  });

  it('block saved while a conversation is open: messages, typing, the pre-chat form, letters and uploads are refused', async () => {
    const admins = await agentSocket(server, admin);
    const blocked = await init(SHENZHEN);
    const served = await init(NANJING);
    const ws = server.url.replace('http', 'ws');
    const blockedSocket = await TestSocket.open(`${ws}/ws/visitor?YQToken=${blocked.YQToken}&lang=en`);
    const servedSocket = await TestSocket.open(`${ws}/ws/visitor?YQToken=${served.YQToken}&lang=en`);
    expect((await say(blocked.YQToken, 'before the rule')).status).toBe(200);
    expect((await say(served.YQToken, 'hello from Nanjing')).status).toBe(200);

    await saveRules([{ codes: ['440000'], action: 'block', text: 'Not served in this region' }]);
    try {
      // The open widget is told at once, with the text it shows instead of the conversation.
      const pushed = await blockedSocket.until(() =>
        framesOf(blockedSocket, '2020')
          .map((frame) => frame.data as WidgetSettings)
          .find((settings) => settings.region.blocked),
      );
      expect(pushed.region).toEqual({ blocked: true, text: 'Not served in this region' });

      const refused = await say(blocked.YQToken, 'after the rule');
      expect(refused.status).toBe(403);
      expect(refused.body.msg).toBe('Sorry, online chat is not available in your region');
      const inChinese = await server.post(
        '/api/visitor/message',
        { YQToken: blocked.YQToken, msg: 'after the rule', onlyID: 'zh-refused' },
        { lang: 'zh' },
      );
      expect(inChinese.body.msg).toBe('抱歉，您所在的地区暂不提供在线咨询服务');
      const stored = await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${blocked.YQToken}`);
      expect(stored.body.data.list.filter((message) => message.role === 'user').map((message) => message.msg)).toEqual(['before the rule']);

      // A draft of the blocked visitor never reaches the agents; the served visitor's, sent after it, does.
      blockedSocket.send({ code: '8011', data: { text: 'blocked draft' } });
      servedSocket.send({ code: '8011', data: { text: 'served draft' } });
      await admins.until(() => framesOf(admins, '8011').find((frame) => (frame.data as { text: string }).text === 'served draft'));
      expect(JSON.stringify(framesOf(admins, '8011'))).not.toContain('blocked draft');

      const contact = await server.post('/api/visitor/contact', { YQToken: blocked.YQToken, name: 'Blocked' });
      expect(contact.status).toBe(403);
      expect(contact.body.msg).toBe('Sorry, online chat is not available in your region');
      // Asking for a person does not queue a blocked visitor either.
      expect((await server.post('/api/visitor/handover', { YQToken: blocked.YQToken })).status).toBe(403);
      expect((await server.post('/api/visitor/handover', { YQToken: served.YQToken })).status).toBe(200);
      const letter = { name: 'Li', content: 'please call me' };
      expect((await server.post('/api/visitor/letter', { ...letter, YQToken: blocked.YQToken })).status).toBe(403);
      // Without a credential the letter is judged by the address it comes from.
      const anonymous = await server.post('/api/visitor/letter', letter, { headers: { 'x-forwarded-for': SHENZHEN } });
      expect(anonymous.status).toBe(403);
      const form = new FormData();
      form.append('YQToken', blocked.YQToken);
      form.append('file', new Blob(['plain words']), 'notes.txt');
      const upload = await fetch(`${server.url}/api/visitor/upload`, { method: 'POST', body: form, headers: { 'accept-language': 'en' } });
      expect(upload.status).toBe(403);
      expect(((await upload.json()) as { msg: string }).msg).toBe('Sorry, online chat is not available in your region');

      // Visitors elsewhere write as before.
      expect((await say(served.YQToken, 'still here')).status).toBe(200);
      expect((await server.post('/api/visitor/contact', { YQToken: served.YQToken, name: 'Wang' })).status).toBe(200);
      expect((await server.post('/api/visitor/letter', letter, { headers: { 'x-forwarded-for': NANJING } })).status).toBe(200);
      const servedForm = new FormData();
      servedForm.append('YQToken', served.YQToken);
      servedForm.append('file', new Blob(['plain words']), 'notes.txt');
      expect((await fetch(`${server.url}/api/visitor/upload`, { method: 'POST', body: servedForm })).status).toBe(200);
    } finally {
      await saveRules([]);
    }
    // Lifted, the same conversation goes on with no gap where the refused message was.
    const resumed = await say(blocked.YQToken, 'after the rule was lifted');
    expect(resumed.status).toBe(200);
    const after = await server.get<{ list: Message[] }>(`/api/visitor/messages?YQToken=${blocked.YQToken}`);
    const seqs = after.body.data.list.map((message) => message.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    expect(after.body.data.list.at(-1)?.msg).toBe('after the rule was lifted');
    for (const socket of [admins, blockedSocket, servedSocket]) socket.close();
  });

  it('block: a rating (and its comment) from the region is refused, one from elsewhere is stored', async () => {
    const blocked = await init(SHENZHEN);
    const served = await init(NANJING);
    expect((await say(blocked.YQToken, 'a question before the rule')).status).toBe(200);
    expect((await say(served.YQToken, 'a question from Nanjing')).status).toBe(200);
    await saveRules([{ codes: ['440000'], action: 'block' }]);
    try {
      const rating = { score: 1, comment: 'a comment the agents must not read' };
      const refused = await server.post('/api/visitor/rate', { ...rating, YQToken: blocked.YQToken });
      expect(refused.status).toBe(403);
      expect(refused.body.msg).toBe('Sorry, online chat is not available in your region');
      const inChinese = await server.post('/api/visitor/rate', { ...rating, YQToken: blocked.YQToken }, { lang: 'zh' });
      expect(inChinese.body.msg).toBe('抱歉，您所在的地区暂不提供在线咨询服务');
      expect((await server.post('/api/visitor/rate', { YQToken: served.YQToken, score: 5, comment: 'thanks' })).status).toBe(200);

      const { db } = server.storage;
      const scores = await db
        .selectFrom('conversations')
        .innerJoin('visitors', 'visitors.id', 'conversations.visitor_id')
        .select(['visitors.public_id', 'conversations.score', 'conversations.comment'])
        .where('visitors.public_id', 'in', [blocked.id, served.id])
        .execute();
      expect(scores.find((row) => row.public_id === served.id)).toMatchObject({ score: 5, comment: 'thanks' });
      expect(scores.find((row) => row.public_id === blocked.id)).toMatchObject({ score: null, comment: '' });
    } finally {
      await saveRules([]);
    }
    // Lifted, the same visitor may rate again.
    expect((await server.post('/api/visitor/rate', { YQToken: blocked.YQToken, score: 4 })).status).toBe(200);
  });

  it('tip: a city rule shows its text to the city’s visitors, who chat as usual; abroad has a code of its own', async () => {
    await saveRules([
      { codes: ['320100'], action: 'tip', text: 'Hello, Nanjing!' },
      { codes: ['990000'], action: 'tip', text: 'We answer in Beijing time' },
    ]);
    const nanjing = await init(NANJING);
    expect(nanjing.settings.region).toEqual({ blocked: false, text: 'Hello, Nanjing!' });
    expect((await say(nanjing.YQToken, 'hi')).status).toBe(200);
    expect((await init(GOOGLE_DNS)).settings.region.text).toBe('We answer in Beijing time');
    expect((await init(SHENZHEN)).settings.region).toEqual({ blocked: false, text: '' });
    await saveRules([]);
  });
});

describe('the assign rule', () => {
  let sockets: TestSocket[] = [];
  // A server of its own: no visitor of the other tests waits in its queue to skew the agents' loads.
  beforeAll(startServer);
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await server.close();
  });

  it('assign: the region’s visitors go to the named agent while it is available; others are routed as usual', async () => {
    // `first` is older and as idle as `assigned`: without the rule, it would be chosen.
    const first = (await createAgent(server, admin, { username: 'first-agent' })).token ?? '';
    const assigned = (await createAgent(server, admin, { username: 'zhejiang-agent' })).token ?? '';
    const firstUuid = await uuidOf(server, first);
    const assignedUuid = await uuidOf(server, assigned);
    sockets = [await agentSocket(server, first), await agentSocket(server, assigned)];
    await saveRules([{ codes: ['330000'], action: 'assign', serviceID: assignedUuid }]);

    const hangzhou = await init(HANGZHOU);
    expect(hangzhou.settings.region).toEqual({ blocked: false, text: '' });
    const message = await say(hangzhou.YQToken, 'hello from Hangzhou');
    expect(message.status).toBe(200);
    expect(message.body.data.serviceID).toBe(assignedUuid);

    const shenzhen = await init(SHENZHEN);
    expect((await say(shenzhen.YQToken, 'hello from Shenzhen')).body.data.serviceID).toBe(firstUuid);
  });

  it('assign without an agent is refused with 400 naming the field, and the saved page stays', async () => {
    const before = await server.get('/api/settings/region', { token: admin });
    const rules = [
      { codes: ['110000'], action: 'tip', text: 'Hello, Beijing!' },
      { codes: ['330000'], action: 'assign' },
    ];
    const refused = await server.post('/api/settings/region', { rules }, { token: admin });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toBe('Invalid field rules.1.serviceID: is required');
    const inChinese = await server.post('/api/settings/region', { rules }, { token: admin, lang: 'zh' });
    expect(inChinese.status).toBe(400);
    expect(inChinese.body.msg).toBe('字段 rules.1.serviceID 无效：必填');
    expect((await server.get('/api/settings/region', { token: admin })).body.data).toEqual(before.body.data);
  });
});
