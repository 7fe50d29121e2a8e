import { createCipheriv, randomBytes } from 'node:crypto';
import { type Message, tipText, type VisitorDetail, type VisitorRecord, type WeChatChannelStatus } from '@parley/protocol';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { Claims } from '../src/db/claims.js';
import { loadSealer } from '../src/lib/sealed.js';
import { WeChatApi } from '../src/modules/wechat/api.js';
import { agentSocket, onlyId } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';
import { sign, textPush, WeChatDouble } from './wechat-double.js';

// WeChat's worked example of a push URL's signature.
const VECTOR = { token: 'AAAAA', timestamp: '1714036504', nonce: '1514711492', signature: 'f464b24fc39322e44b38aa78f5edd27bd1441696' };
const APP_ID = 'wx5823bf96d3bd56c7';
const AES_KEY = randomBytes(32).toString('base64').slice(0, 43);
const OFFICIAL = { enabled: true, appId: APP_ID, appSecret: 'app-secret-1', token: VECTOR.token, aesKey: AES_KEY };
// A 1×1 PNG, as WeChat's media/get would answer an image.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** Safe mode as WeChat's documentation describes it, written here apart from the server's own code. */
function encrypt(message: string, appId = APP_ID): string {
  const key = Buffer.from(`${AES_KEY}=`, 'base64');
  const body = Buffer.from(message);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  const plain = Buffer.concat([randomBytes(16), length, body, Buffer.from(appId)]);
  const pad = 32 - (plain.length % 32);
  const cipher = createCipheriv('aes-256-cbc', key, key.subarray(0, 16)).setAutoPadding(false);
  return Buffer.concat([cipher.update(Buffer.concat([plain, Buffer.alloc(pad, pad)])), cipher.final()]).toString('base64');
}

describe('WeChat channels (§11) against a double of WeChat', () => {
  let double: WeChatDouble;
  let server: TestServer;
  let admin: string;
  let app: FastifyInstance;
  let base: string;
  let msgCounter = 1000;
  /** The server's clock is the real one moved by this much: the worked example is signed in 2024. */
  let shift = 0;

  const nextMsgId = () => String(++msgCounter);

  async function push(channel: string, body: string, query: Record<string, string> = {}, at = Date.now()) {
    const timestamp = String(Math.floor(at / 1000));
    const nonce = String(Math.floor(Math.random() * 1e9));
    const params = new URLSearchParams({ signature: sign(VECTOR.token, timestamp, nonce), timestamp, nonce, ...query });
    return fetch(`${base}/wechat/${channel}?${params}`, { method: 'POST', headers: { 'content-type': 'text/xml' }, body });
  }

  async function visitorOf(openid: string): Promise<{ id: number; publicId: string }> {
    const row = await server.storage.db
      .selectFrom('wechat_users')
      .innerJoin('visitors', 'visitors.id', 'wechat_users.visitor_id')
      .select(['visitors.id', 'visitors.public_id'])
      .where('wechat_users.openid', '=', openid)
      .executeTakeFirstOrThrow();
    return { id: row.id, publicId: row.public_id };
  }

  async function messagesOf(publicId: string): Promise<Message[]> {
    const answer = await fetch(`${base}/api/talk/messages?YQToken=${publicId}`, { headers: { authorization: `Bearer ${admin}` } });
    return ((await answer.json()) as { data: { list: Message[] } }).data.list;
  }

  async function reply(publicId: string, msg: string): Promise<Message> {
    const answer = await fetch(`${base}/api/talk/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ YQToken: publicId, msg, onlyID: onlyId() }),
    });
    const body = (await answer.json()) as { data: Message; msg: string };
    if (answer.status !== 200) throw new Error(`send failed: ${body.msg}`);
    return body.data;
  }

  async function channelStatusOf(): Promise<WeChatChannelStatus> {
    const page = await server.get<{ officialAccount: WeChatChannelStatus }>('/api/settings/weChatSetting', { token: admin });
    return page.body.data.officialAccount;
  }

  /** A WeChat user who wrote once, so that the agent may answer. */
  async function userWhoWrote(): Promise<{ openid: string; publicId: string }> {
    const openid = `o-${randomBytes(6).toString('hex')}`;
    expect((await push('officialAccount', textPush(openid, 'hello', nextMsgId()))).status).toBe(200);
    return { openid, publicId: (await visitorOf(openid)).publicId };
  }

  beforeAll(async () => {
    double = await WeChatDouble.start();
    server = await startTestServer(
      {
        WECHAT_API_BASE: double.url,
        WECHAT_TIMEOUT_MS: '400',
        WECHAT_RETRY_MS: '100',
        WECHAT_POLL_MS: '50',
      },
      { now: () => Date.now() + shift },
    );
    app = server.app;
    base = server.url;
    admin = await server.login();
    const saved = await server.post('/api/settings/weChatSetting', { officialAccount: OFFICIAL }, { token: admin });
    expect(saved.status).toBe(200);
  });

  afterAll(async () => {
    if (app !== server.app) await app.close();
    await server.close();
    await double.close();
  });

  it('answers the URL check with echostr when signed (WeChat worked example), 401 without echo when not', async () => {
    const query = new URLSearchParams({ ...VECTOR, echostr: 'echo-8842' });
    query.delete('token');
    // Signed in 2024: today it is a stale signature, refused like a wrong one.
    const stale = await fetch(`${base}/wechat/officialAccount?${query}`);
    expect(stale.status).toBe(401);
    expect(await stale.text()).not.toContain('echo-8842');
    // At the example's own moment (two minutes after it) it is good.
    shift = Number(VECTOR.timestamp) * 1000 + 120_000 - Date.now();
    try {
      const good = await fetch(`${base}/wechat/officialAccount?${query}`);
      expect(good.status).toBe(200);
      expect(good.headers.get('content-type')).toContain('text/plain');
      expect(await good.text()).toBe('echo-8842');
      query.set('signature', '0'.repeat(40));
      const bad = await fetch(`${base}/wechat/officialAccount?${query}`);
      expect(bad.status).toBe(401);
      expect(await bad.text()).not.toContain('echo-8842');
    } finally {
      shift = 0;
    }
  });

  it('refuses a signed push whose timestamp is more than five minutes from now (a replay), and stores nothing of it', async () => {
    const openid = `o-${randomBytes(6).toString('hex')}`;
    const old = await push('officialAccount', textPush(openid, 'replayed', nextMsgId()), {}, Date.now() - 301_000);
    expect(old.status).toBe(401);
    const ahead = await push('officialAccount', textPush(openid, 'from the future', nextMsgId()), {}, Date.now() + 301_000);
    expect(ahead.status).toBe(401);
    // The settings page says why, as a code the console words in zh or en (and in English beside it).
    expect((await channelStatusOf()).status).toMatchObject({ lastErrorCode: 'staleTimestamp', lastError: 'push refused: stale timestamp' });
    const storedNone = await server.storage.db.selectFrom('wechat_users').select('id').where('openid', '=', openid).executeTakeFirst();
    expect(storedNone).toBeUndefined();
    // Within the window (a slow network, clocks a little apart) it is taken.
    const late = await push('officialAccount', textPush(openid, 'a bit late', nextMsgId()), {}, Date.now() - 200_000);
    expect(late.status).toBe(200);
    expect((await messagesOf((await visitorOf(openid)).publicId)).map((message) => message.msg)).toContain('a bit late');
  });

  it('answers 404 for a channel that is off and 400 for a body that is not a message', async () => {
    expect((await push('miniProgram', textPush('o-x', 'hi', nextMsgId()))).status).toBe(404);
    expect((await push('officialAccount', '<xml><broken>')).status).toBe(400);
    expect((await push('officialAccount', '<xml><ToUserName>x</ToUserName></xml>')).status).toBe(400);
  });

  it('stores a signed plain push as a message of one officialAccount visitor, once however often it is pushed', async () => {
    const openid = `o-${randomBytes(6).toString('hex')}`;
    const msgId = nextMsgId();
    const first = await push('officialAccount', textPush(openid, '你好，在吗', msgId));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain('text/plain');
    expect(await first.text()).toBe('success');
    // WeChat pushes again when it did not hear back in time: the same MsgId is stored once.
    await Promise.all([1, 2].map(() => push('officialAccount', textPush(openid, '你好，在吗', msgId))));
    const visitor = await visitorOf(openid);
    const list = await messagesOf(visitor.publicId);
    expect(list.filter((message) => message.role === 'user').map((message) => message.msg)).toEqual(['你好，在吗']);
    const row = await server.storage.db
      .selectFrom('visitors')
      .select(['channel', 'name'])
      .where('id', '=', visitor.id)
      .executeTakeFirstOrThrow();
    expect(row.channel).toBe('officialAccount');
    expect(row.name).toBe(`微信用户 ·${openid.slice(-4)}`);
    // A wrong signature is refused and stores nothing.
    const forged = await fetch(`${base}/wechat/officialAccount?signature=${'1'.repeat(40)}&timestamp=1&nonce=2`, {
      method: 'POST',
      body: textPush(openid, 'forged', nextMsgId()),
      headers: { 'content-type': 'text/xml' },
    });
    expect(forged.status).toBe(401);
    expect((await channelStatusOf()).status).toMatchObject({ lastErrorCode: 'badSignature', lastErrorDetail: '' });
    const settings = await server.get<{ officialAccount: { serverUrl: string; status: { lastReceivedAt: string | null } } }>(
      '/api/settings/weChatSetting',
      { token: admin },
    );
    expect(settings.body.data.officialAccount.serverUrl).toMatch(/\/wechat\/officialAccount$/);
    expect(settings.body.data.officialAccount.status.lastReceivedAt).not.toBeNull();
  });

  it('decrypts a safe-mode push (msg_signature over the Encrypt field, the appId checked)', async () => {
    const openid = `o-${randomBytes(6).toString('hex')}`;
    const encrypted = encrypt(textPush(openid, 'secret hello', nextMsgId()));
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = '77';
    const query = {
      signature: sign(VECTOR.token, timestamp, nonce),
      timestamp,
      nonce,
      encrypt_type: 'aes',
      msg_signature: sign(VECTOR.token, timestamp, nonce, encrypted),
    };
    const body = `<xml><ToUserName><![CDATA[gh_account]]></ToUserName><Encrypt><![CDATA[${encrypted}]]></Encrypt></xml>`;
    const post = (q: Record<string, string>, b: string) =>
      fetch(`${base}/wechat/officialAccount?${new URLSearchParams(q)}`, {
        method: 'POST',
        body: b,
        headers: { 'content-type': 'text/xml' },
      });
    expect((await post({ ...query, msg_signature: '2'.repeat(40) }, body)).status).toBe(401);
    const otherApp = encrypt(textPush(openid, 'other', nextMsgId()), 'wx-someone-else');
    expect(
      (
        await post(
          { ...query, msg_signature: sign(VECTOR.token, timestamp, nonce, otherApp) },
          `<xml><Encrypt><![CDATA[${otherApp}]]></Encrypt></xml>`,
        )
      ).status,
    ).toBe(401);
    const good = await post(query, body);
    expect(good.status).toBe(200);
    expect(await good.text()).toBe('success');
    const list = await messagesOf((await visitorOf(openid)).publicId);
    expect(list.map((message) => message.msg)).toContain('secret hello');
  });

  it('takes a mini program set to JSON, and records its enter-session event on the visitor timeline', async () => {
    const mini = { enabled: true, appId: 'wx-mini-1', appSecret: 'mini-secret', token: VECTOR.token, aesKey: AES_KEY, format: 'json' };
    expect(
      (await server.post('/api/settings/weChatSetting', { officialAccount: OFFICIAL, miniProgram: mini }, { token: admin })).status,
    ).toBe(200);
    const openid = `o-mini-${randomBytes(6).toString('hex')}`;
    const now = Math.floor(Date.now() / 1000);
    const event = {
      ToUserName: 'gh_mini',
      FromUserName: openid,
      CreateTime: now,
      MsgType: 'event',
      Event: 'user_enter_tempsession',
      SessionFrom: 'cart',
    };
    const stamp = String(now);
    const sendJson = (body: unknown) =>
      fetch(
        `${base}/wechat/miniProgram?${new URLSearchParams({ signature: sign(VECTOR.token, stamp, '6'), timestamp: stamp, nonce: '6' })}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
      );
    expect((await sendJson(event)).status).toBe(200);
    // The same event pushed again (same FromUserName and CreateTime) is recorded once.
    expect((await sendJson(event)).status).toBe(200);
    const text = {
      ToUserName: 'gh_mini',
      FromUserName: openid,
      CreateTime: now + 1,
      MsgType: 'text',
      Content: '小程序里的问题',
      MsgId: nextMsgId(),
    };
    const answer = await sendJson(text);
    expect(await answer.text()).toBe('success');
    const visitor = await visitorOf(openid);
    const row = await server.storage.db.selectFrom('visitors').select('channel').where('id', '=', visitor.id).executeTakeFirstOrThrow();
    expect(row.channel).toBe('miniProgram');
    expect((await messagesOf(visitor.publicId)).map((message) => message.msg)).toContain('小程序里的问题');
    const visits = await server.get<{ list: { URL: string }[] }>(`/api/talk/visits?YQToken=${visitor.publicId}`, { token: admin });
    expect(visits.body.data.list.filter((visit) => visit.URL.includes('user_enter_tempsession'))).toHaveLength(1);
    // XML to a channel set to JSON is a bad body.
    expect((await sendJson('<xml></xml>')).status).toBe(400);
  });

  it('refuses a tampered safe-mode body and an oversized one; stores an unknown message type as such, never a 500', async () => {
    const openid = `o-${randomBytes(6).toString('hex')}`;
    const encrypted = encrypt(textPush(openid, 'original', nextMsgId()));
    const raw = Buffer.from(encrypted, 'base64');
    raw[raw.length - 20] = (raw[raw.length - 20] ?? 0) ^ 0xff;
    const tampered = raw.toString('base64');
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = '9';
    const query = new URLSearchParams({
      signature: sign(VECTOR.token, timestamp, nonce),
      timestamp,
      nonce,
      encrypt_type: 'aes',
      msg_signature: sign(VECTOR.token, timestamp, nonce, tampered),
    });
    const bad = await fetch(`${base}/wechat/officialAccount?${query}`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml' },
      body: `<xml><Encrypt><![CDATA[${tampered}]]></Encrypt></xml>`,
    });
    expect([400, 401]).toContain(bad.status);
    const entities = `<?xml version="1.0"?><!DOCTYPE xml [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>${textPush(openid, '&b;', nextMsgId())}`;
    expect((await push('officialAccount', entities)).status).toBe(400);
    const huge = await push('officialAccount', textPush(openid, 'x'.repeat(200 * 1024), nextMsgId()));
    expect(huge.status).toBe(413);
    const odd = `<xml><ToUserName>gh</ToUserName><FromUserName>${openid}</FromUserName><CreateTime>${Math.floor(Date.now() / 1000)}</CreateTime><MsgType>hologram</MsgType><MsgId>${nextMsgId()}</MsgId></xml>`;
    expect((await push('officialAccount', odd)).status).toBe(200);
    // Pushed again: still one notice.
    expect((await push('officialAccount', odd)).status).toBe(200);
    const list = await messagesOf((await visitorOf(openid)).publicId);
    expect(list.map((message) => message.msg)).not.toContain('original');
    // An unknown type is a tip the agent reads in their language, never the user's own words.
    const notices = list.filter((message) => message.msg === 'tip.unsupportedMessage');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ role: 'tip', nickname: 'hologram' });
    expect(tipText(notices[0]?.msg ?? '', notices[0]?.nickname ?? '', 'en')).toBe('The visitor sent an unsupported message (hologram)');
    expect(tipText(notices[0]?.msg ?? '', notices[0]?.nickname ?? '', 'zh')).toBe('访客发来一条暂不支持的消息（hologram）');
    expect(list.filter((message) => message.role === 'user' && message.msg.includes('hologram'))).toHaveLength(0);
  });

  it('fetches a pushed image at once into the visitor uploads', async () => {
    const openid = `o-${randomBytes(6).toString('hex')}`;
    const mediaId = double.putMedia('image/png', PNG);
    const body = `<xml><ToUserName>gh</ToUserName><FromUserName>${openid}</FromUserName><CreateTime>${Math.floor(Date.now() / 1000)}</CreateTime><MsgType>image</MsgType><PicUrl>http://mmbiz.example/x</PicUrl><MediaId>${mediaId}</MediaId><MsgId>${nextMsgId()}</MsgId></xml>`;
    expect((await push('officialAccount', body)).status).toBe(200);
    const [image] = (await messagesOf((await visitorOf(openid)).publicId)).filter((message) => message.type === 'image');
    expect(image?.msg).toMatch(/^\/api\/files\//);
    const file = await fetch(`${base}${image?.msg}`, { headers: { authorization: `Bearer ${admin}` } });
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('delivers an agent reply through custom/send with a cached access token, refreshed once on 40001', async () => {
    const { openid, publicId } = await userWhoWrote();
    const sent = await reply(publicId, 'How can I help?');
    expect(sent.delivery).toBe('pending');
    const delivered = await double.until(() =>
      double.sent.find((item) => item.body.touser === openid && item.body.text?.content === 'How can I help?'),
    );
    expect(delivered.body.msgtype).toBe('text');
    await expect.poll(async () => (await messagesOf(publicId)).find((message) => message.id === sent.id)?.delivery).toBe('sent');
    // WeChat cannot take it back: withdrawing it is refused rather than hiding it from the workbench alone.
    const withdraw = await server.post('/api/talk/withdraw', { YQToken: publicId, onlyID: sent.onlyID }, { token: admin });
    expect(withdraw.status).toBe(409);
    const tokensBefore = double.tokenCalls.stable_token;
    await reply(publicId, 'second');
    await double.until(() => double.sent.find((item) => item.body.text?.content === 'second'));
    expect(double.tokenCalls.stable_token).toBe(tokensBefore);
    // WeChat says the token is no longer valid: one fresh token, the message sent with it.
    double.rejectTokens(40001);
    await reply(publicId, 'third');
    const third = await double.until(() => double.sent.find((item) => item.body.text?.content === 'third'));
    expect(double.tokenCalls.stable_token).toBe(tokensBefore + 1);
    expect(third.accessToken).not.toBe(delivered.accessToken);
  });

  it('forces one token refresh for all the callers of two processes that WeChat refused the same token', async () => {
    // Two APIs on one database, as two processes of one deployment: each its own memory, one sealing key.
    const sealer = loadSealer(server.config.dataDir, server.config.secretKey);
    const processes = [0, 1].map(
      () => new WeChatApi(server.storage.db, sealer, new Claims(server.storage.db), server.config.wechat, Date.now, 20),
    );
    const app = { channel: 'officialAccount' as const, appId: APP_ID, appSecret: OFFICIAL.appSecret };
    const { openid } = await userWhoWrote();
    const before = await Promise.all(processes.map((api) => api.token(app)));
    expect(before[1]).toBe(before[0]);
    // WeChat drops the token; its token calls take a while, so every caller meets the refusal first.
    double.revokeTokens();
    double.tokenDelayMs = 150;
    const forcedBefore = double.forcedRefreshes;
    try {
      const sends = processes.flatMap((api, index) =>
        [0, 1, 2].map((n) =>
          api.call(app, '/cgi-bin/message/custom/send', {
            json: { touser: openid, msgtype: 'text', text: { content: `refresh ${index}-${n}` } },
          }),
        ),
      );
      await Promise.all(sends);
    } finally {
      double.tokenDelayMs = 0;
    }
    expect(double.forcedRefreshes - forcedBefore).toBe(1);
    const sent = double.sent.filter((item) => item.body.touser === openid && item.body.text?.content?.startsWith('refresh '));
    expect(sent).toHaveLength(6);
    expect(new Set(sent.map((item) => item.accessToken)).size).toBe(1);
    expect(sent[0]?.accessToken).not.toBe(before[0]);
  });

  it('sends the auto answers too: with nobody online, the noAgent text reaches the WeChat user', async () => {
    const { openid } = await userWhoWrote();
    const noAgent = '暂时没有客服在线，请留言，我们会尽快联系您。';
    const sent = await double.until(() => double.sent.find((item) => item.body.touser === openid && item.body.text?.content === noAgent));
    expect(sent.body.msgtype).toBe('text');
  });

  it('sends an agent image as an image: uploaded to WeChat first, then sent by its media_id', async () => {
    const { openid, publicId } = await userWhoWrote();
    const form = new FormData();
    form.append('file', new Blob([PNG]), 'dot.png');
    const uploaded = await fetch(`${base}/api/talk/upload`, { method: 'POST', headers: { authorization: `Bearer ${admin}` }, body: form });
    const file = ((await uploaded.json()) as { data: { url: string } }).data;
    const answer = await fetch(`${base}/api/talk/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ YQToken: publicId, msg: file.url, onlyID: onlyId(), type: 'image' }),
    });
    expect(answer.status).toBe(200);
    const sent = await double.until(() => double.sent.find((item) => item.body.touser === openid && item.body.msgtype === 'image'));
    const mediaId = sent.body.image?.media_id ?? '';
    expect(double.uploaded.get(mediaId)?.type).toBe('image');
    expect(double.uploaded.get(mediaId)?.bytes.includes(PNG)).toBe(true);
  });

  it('keeps a visitor messages in their order when the first one must wait for its retry', async () => {
    const { openid, publicId } = await userWhoWrote();
    // The auto answer to the user's message goes first; the failure is meant for the agent's first reply.
    await double.until(() => double.sent.find((item) => item.body.touser === openid));
    double.failSends({ status: 503 });
    await reply(publicId, 'first of two');
    await reply(publicId, 'second of two');
    await double.until(() => double.sent.find((item) => item.body.touser === openid && item.body.text?.content === 'second of two'));
    const order = double.sent.filter((item) => item.body.touser === openid).map((item) => item.body.text?.content);
    expect(order.indexOf('first of two')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('first of two')).toBeLessThan(order.indexOf('second of two'));
  });

  it('tests the stored credentials for an administrator, saying what WeChat answered', async () => {
    const good = await server.post<{ ok: boolean }>('/api/wechat/test', { channel: 'officialAccount' }, { token: admin });
    expect(good.body.data).toMatchObject({ ok: true });
    const mini = { enabled: true, appId: 'wx-mini-2', appSecret: 'wrong-secret', token: VECTOR.token };
    expect(
      (await server.post('/api/settings/weChatSetting', { officialAccount: OFFICIAL, miniProgram: mini }, { token: admin })).status,
    ).toBe(200);
    const bad = await server.post<{ ok: boolean; errcode: number }>('/api/wechat/test', { channel: 'miniProgram' }, { token: admin });
    expect(bad.body.data).toMatchObject({ ok: false, errcode: 40125 });
    expect((await server.post('/api/wechat/test', { channel: 'elsewhere' }, { token: admin })).status).toBe(400);
  });

  it('tells the agent at once when WeChat refuses a message because the 48-hour window closed', async () => {
    const { openid, publicId } = await userWhoWrote();
    // The auto answer to the user's message goes first; the refusal is meant for the agent's reply.
    await double.until(() => double.sent.find((item) => item.body.touser === openid));
    const socket = await agentSocket(server, admin);
    try {
      double.failSends({ errcode: 45015 });
      const sent = await reply(publicId, 'too late');
      const update = await socket.until(() =>
        socket.frames.find((item) => {
          const frame = item as { code: string; data?: { id: number } };
          return frame.code === '8020' && frame.data?.id === sent.id;
        }),
      );
      expect((update as { data: unknown }).data).toMatchObject({ YQToken: publicId, delivery: 'failed', deliveryError: 'windowClosed' });
      const stored = (await messagesOf(publicId)).find((message) => message.id === sent.id);
      expect(stored).toMatchObject({ delivery: 'failed', deliveryError: 'windowClosed' });
      expect((await channelStatusOf()).status).toMatchObject({ lastErrorCode: 'wechatRefused', lastErrorDetail: '45015' });
    } finally {
      socket.close();
    }
  });

  it('retries a send WeChat failed (5xx, timeout), and one left pending survives a restart and is sent once', async () => {
    const { openid, publicId } = await userWhoWrote();
    double.failSends({ status: 503 }, { hang: true }, { errcode: -1 });
    const sent = await reply(publicId, 'after a few tries');
    await double.until(() => double.sent.find((item) => item.body.text?.content === 'after a few tries'));
    await expect.poll(async () => (await messagesOf(publicId)).find((message) => message.id === sent.id)?.delivery).toBe('sent');

    // A server that stops while a send is under way (WeChat does not answer): the next one sends it.
    const attempts = double.sendAttempts;
    double.failSends({ hang: true });
    const waiting = await reply(publicId, 'across a restart');
    await double.until(() => double.sendAttempts > attempts);
    await app.close();
    const row = await server.storage.db.selectFrom('wechat_outbox').selectAll().where('message_id', '=', waiting.id).executeTakeFirst();
    expect(row).toBeDefined();
    expect(double.sent.filter((item) => item.body.text?.content === 'across a restart')).toHaveLength(0);
    const tokensBefore = double.tokenCalls.stable_token;
    app = await buildApp({ config: server.config, storage: server.storage, bus: server.bus, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (typeof address !== 'object' || !address) throw new Error('no address');
    base = `http://127.0.0.1:${address.port}`;
    await double.until(() => double.sent.find((item) => item.body.text?.content === 'across a restart' && item.body.touser === openid));
    await expect.poll(async () => (await messagesOf(publicId)).find((message) => message.id === waiting.id)?.delivery).toBe('sent');
    expect(double.sent.filter((item) => item.body.text?.content === 'across a restart')).toHaveLength(1);
    // The new process took the token the first one stored: every process shares it.
    expect(double.tokenCalls.stable_token).toBe(tokensBefore);
  });
});

describe("WeChat's rules kept by the server (48-hour window and quota, typing, ratings), on a clock the test moves", () => {
  let double: WeChatDouble;
  let server: TestServer;
  let admin: string;
  let shift = 0;
  let msgId = 5000;

  const signedPush = (channel: string, body: string) => {
    const timestamp = String(Math.floor((Date.now() + shift) / 1000));
    const params = new URLSearchParams({ signature: sign(VECTOR.token, timestamp, '1'), timestamp, nonce: '1' });
    return fetch(`${server.url}/wechat/${channel}?${params}`, { method: 'POST', headers: { 'content-type': 'text/xml' }, body });
  };
  const write = async (openid: string, content: string) => {
    const answer = await signedPush('officialAccount', textPush(openid, content, String(++msgId), Math.floor((Date.now() + shift) / 1000)));
    expect(answer.status).toBe(200);
  };
  const publicIdOf = async (openid: string) =>
    (
      await server.storage.db
        .selectFrom('wechat_users')
        .innerJoin('visitors', 'visitors.id', 'wechat_users.visitor_id')
        .select('visitors.public_id')
        .where('wechat_users.openid', '=', openid)
        .executeTakeFirstOrThrow()
    ).public_id;
  const messages = async (publicId: string) =>
    (await server.get<{ list: Message[] }>(`/api/talk/messages?YQToken=${publicId}`, { token: admin })).body.data.list;
  const reply = async (publicId: string, msg: string) => {
    const answer = await server.post<Message>('/api/talk/send', { YQToken: publicId, msg, onlyID: onlyId() }, { token: admin });
    expect(answer.status).toBe(200);
    return answer.body.data;
  };
  const deliveryOf = async (publicId: string, id: number) => (await messages(publicId)).find((message) => message.id === id);
  /** A user who wrote, once every answer their message set off has gone to WeChat: how many reached them. */
  const settledUser = async () => {
    const openid = `o-${randomBytes(6).toString('hex')}`;
    await write(openid, 'hello');
    const publicId = await publicIdOf(openid);
    await expect.poll(async () => (await messages(publicId)).some((message) => message.delivery === 'sent')).toBe(true);
    await expect.poll(async () => (await messages(publicId)).filter((message) => message.delivery === 'pending').length).toBe(0);
    return { openid, publicId, sent: () => double.sent.filter((item) => item.body.touser === openid) };
  };
  const saveSettings = async (extra: Record<string, unknown>) => {
    const saved = await server.post('/api/settings/weChatSetting', { officialAccount: OFFICIAL, ...extra }, { token: admin });
    expect(saved.status).toBe(200);
  };

  beforeAll(async () => {
    double = await WeChatDouble.start();
    server = await startTestServer(
      { WECHAT_API_BASE: double.url, WECHAT_TIMEOUT_MS: '400', WECHAT_RETRY_MS: '100', WECHAT_POLL_MS: '50' },
      { now: () => Date.now() + shift },
    );
    admin = await server.login();
    await saveSettings({});
  });

  afterAll(async () => {
    await server.close();
    await double.close();
  });

  it('refuses a reply over the quota (quotaExceeded) without sending it; the user writing again makes the quota whole', async () => {
    const user = await settledUser();
    const already = user.sent().length;
    await saveSettings({ windowQuota: already + 1 });
    // Agents read the quota the workbench shows; the page itself stays the Admin's.
    const { token: agent } = await createAgent(server, admin, { username: `quota-${randomBytes(4).toString('hex')}` });
    expect((await server.get<{ quota: number }>('/api/wechat/replyQuota', { token: agent })).body.data).toEqual({ quota: already + 1 });
    expect((await server.get('/api/settings/weChatSetting', { token: agent })).status).toBe(403);
    expect((await server.get('/api/wechat/replyQuota')).status).toBe(401);
    const first = await reply(user.publicId, 'within the quota');
    await expect.poll(async () => (await deliveryOf(user.publicId, first.id))?.delivery).toBe('sent');
    const over = await reply(user.publicId, 'over the quota');
    await expect.poll(async () => (await deliveryOf(user.publicId, over.id))?.delivery).toBe('failed');
    expect(await deliveryOf(user.publicId, over.id)).toMatchObject({ deliveryError: 'quotaExceeded' });
    expect(user.sent().map((item) => item.body.text?.content)).not.toContain('over the quota');
    expect(user.sent()).toHaveLength(already + 1);
    await write(user.openid, 'one more question');
    const after = await reply(user.publicId, 'answered again');
    await expect.poll(async () => (await deliveryOf(user.publicId, after.id))?.delivery).toBe('sent');
    expect(user.sent().map((item) => item.body.text?.content)).toContain('answered again');
    await saveSettings({});
  });

  it("shows WeChat's typing indicator while the user's agent types, asked at most once every 12 s", async () => {
    const user = await settledUser();
    await reply(user.publicId, 'let me check');
    const type = (typing: boolean) => server.post('/api/wechat/typing', { YQToken: user.publicId, typing }, { token: admin });
    const calls = () => double.typing.filter((call) => call.touser === user.openid).map((call) => call.command);
    expect((await type(true)).status).toBe(200);
    await double.until(() => calls().length === 1);
    // Again at once: WeChat still shows it, nothing is asked; clearing the draft cancels it.
    expect((await type(true)).status).toBe(200);
    expect((await type(false)).status).toBe(200);
    await double.until(() => calls().length === 2);
    expect(calls()).toEqual(['Typing', 'CancelTyping']);
    await type(true);
    await double.until(() => calls().length === 3);
    await type(true);
    try {
      shift = 12_001;
      await type(true);
      await double.until(() => calls().length === 4);
    } finally {
      shift = 0;
    }
    await type(false);
    await double.until(() => calls().length === 5);
    expect(calls()).toEqual(['Typing', 'CancelTyping', 'Typing', 'Typing', 'CancelTyping']);
    // Not a WeChat user, or not a user at all: nothing to type to.
    expect((await server.post('/api/wechat/typing', { YQToken: 'x'.repeat(22), typing: true }, { token: admin })).status).toBe(404);
    expect((await server.post('/api/wechat/typing', { YQToken: user.publicId, typing: 'yes' }, { token: admin })).status).toBe(400);
    expect((await server.post('/api/wechat/typing', { YQToken: user.publicId, typing: true })).status).toBe(401);
  });

  it('asks a WeChat user for a score in text when the conversation ends; a bare 1–5 soon after is their rating, not a message', async () => {
    const lang = server.config.siteLanguage;
    const rated = async (publicId: string) =>
      (await server.get<VisitorDetail>(`/api/user/detail?YQToken=${publicId}`, { token: admin })).body.data.conversations
        .map((conversation) => conversation.score)
        .filter((score) => score !== null);
    const user = await settledUser();
    await reply(user.publicId, 'anything else?');
    expect((await server.post('/api/talk/end', { YQToken: user.publicId }, { token: admin })).status).toBe(200);
    const prompt = tipText('tip.ratePrompt', '', lang);
    await double.until(() => user.sent().find((item) => item.body.text?.content === prompt));
    await write(user.openid, ' 4 ');
    await double.until(() => user.sent().find((item) => item.body.text?.content === tipText('tip.rated', '4', lang)));
    expect(await rated(user.publicId)).toEqual([4]);
    const list = await messages(user.publicId);
    expect(list.filter((message) => message.role === 'user').map((message) => message.msg)).toEqual(['hello']);
    // The prompt was answered: a digit now is a message like any other.
    await write(user.openid, '5');
    await expect.poll(async () => (await messages(user.publicId)).filter((message) => message.role === 'user').length).toBe(2);
    expect(await rated(user.publicId)).toEqual([4]);

    // Answered too late, the digit is a message and no rating.
    const late = await settledUser();
    await reply(late.publicId, 'bye');
    expect((await server.post('/api/talk/end', { YQToken: late.publicId }, { token: admin })).status).toBe(200);
    await double.until(() => late.sent().find((item) => item.body.text?.content === prompt));
    shift = 31 * 60_000;
    try {
      await write(late.openid, '2');
      await expect
        .poll(async () => (await messages(late.publicId)).some((message) => message.role === 'user' && message.msg === '2'))
        .toBe(true);
      expect(await rated(late.publicId)).toEqual([]);
    } finally {
      shift = 0;
    }
  });

  it("lists WeChat users with their channel fields: subscribed or not, last interaction, the window's end", async () => {
    const openid = `o-${randomBytes(6).toString('hex')}`;
    const event = (name: string, at: number) =>
      signedPush(
        'officialAccount',
        `<xml><ToUserName>gh</ToUserName><FromUserName>${openid}</FromUserName><CreateTime>${at}</CreateTime><MsgType>event</MsgType><Event>${name}</Event></xml>`,
      );
    const at = Math.floor(Date.now() / 1000);
    expect((await event('subscribe', at)).status).toBe(200);
    const listed = async () => {
      const page = await server.get<{ list: VisitorRecord[] }>('/api/user/getList?channel=officialAccount&pageSize=100', { token: admin });
      return page.body.data.list.find((row) => row.YQToken === publicId);
    };
    const publicId = await publicIdOf(openid);
    const first = await listed();
    expect(first?.wechat?.subscribed).toBe(true);
    const interaction = Date.parse(first?.wechat?.lastInteractionAt ?? '');
    expect(Math.abs(interaction - Date.now())).toBeLessThan(60_000);
    expect(Date.parse(first?.wechat?.windowEndsAt ?? '')).toBe(interaction + 48 * 3600_000);
    // Leaving opens no window: the last interaction stays, the subscription ends.
    expect((await event('unsubscribe', at + 1)).status).toBe(200);
    expect((await listed())?.wechat).toEqual({ ...first?.wechat, subscribed: false });
    // A web visitor has no such fields.
    const web = await server.post<{ id: string }>('/api/visitor/init', { url: 'https://example.com/' });
    const webRow = (await server.get<{ list: VisitorRecord[] }>('/api/user/getList?channel=web', { token: admin })).body.data.list.find(
      (row) => row.YQToken === web.body.data.id,
    );
    expect(webRow).toBeDefined();
    expect(webRow?.wechat).toBeUndefined();
  });

  it('counts conversations begun in the range by channel (census dim=channel), in JSON and CSV', async () => {
    const before = await server.get<{ list: { name: string; conversations: number }[] }>('/api/census/talk?dim=channel', { token: admin });
    expect(before.status).toBe(200);
    const count = (list: { name: string; conversations: number }[], name: string) =>
      list.find((row) => row.name === name)?.conversations ?? 0;
    const official = count(before.body.data.list, 'officialAccount');
    // One more WeChat conversation, and one on the web.
    await settledUser();
    const web = await server.post<{ YQToken: string }>('/api/visitor/init', { url: 'https://example.com/' });
    expect(
      (await server.post('/api/visitor/message', { YQToken: web.body.data.YQToken, msg: 'from the web', onlyID: onlyId() })).status,
    ).toBe(200);
    const after = await server.get<{ list: { name: string; conversations: number }[] }>('/api/census/talk?dim=channel', { token: admin });
    expect(count(after.body.data.list, 'officialAccount')).toBe(official + 1);
    expect(count(after.body.data.list, 'web')).toBe(count(before.body.data.list, 'web') + 1);
    expect(after.body.data.list.every((row) => ['web', 'officialAccount', 'miniProgram'].includes(row.name))).toBe(true);
    const csv = await fetch(`${server.url}/api/census/talk?dim=channel&format=csv`, { headers: { authorization: `Bearer ${admin}` } });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const text = await csv.text();
    expect(text).toContain(`officialAccount,${official + 1},`);
    expect((await server.get('/api/census/flow?dim=channel', { token: admin })).status).toBe(400);
  });

  it('refuses a reply once 48 hours passed since the user last wrote (windowClosed), without sending it', async () => {
    const user = await settledUser();
    const before = user.sent().length;
    shift = 48 * 3600_000 + 60_000;
    try {
      const late = await reply(user.publicId, 'two days later');
      await expect.poll(async () => (await deliveryOf(user.publicId, late.id))?.delivery).toBe('failed');
      expect(await deliveryOf(user.publicId, late.id)).toMatchObject({ deliveryError: 'windowClosed' });
      expect(user.sent()).toHaveLength(before);
      // The user writes: the window opens again.
      await write(user.openid, 'back again');
      const answered = await reply(user.publicId, 'welcome back');
      await expect.poll(async () => (await deliveryOf(user.publicId, answered.id))?.delivery).toBe('sent');
    } finally {
      shift = 0;
    }
  });
});
