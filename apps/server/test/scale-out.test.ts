import { randomBytes } from 'node:crypto';
import type { Message } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, onlyId, visitor } from './chat-harness.js';
import { backends, startTestServer, type TestServer } from './harness.js';
import { dropSchema } from './processes.js';
import { TestSocket } from './sockets.js';
import { sign, textPush, WeChatDouble } from './wechat-double.js';

// Two processes of one deployment need a shared database server and Redis: this runs where the CI
// variables provide them (SQLite and the in-process bus are single-process by design).
describe.runIf(backends.postgres && backends.redis)('two server processes sharing PostgreSQL and Redis', () => {
  const schema = `so_${randomBytes(6).toString('hex')}`;
  // A short grace keeps the presence case from waiting the default 4 s; the rule is the same.
  const PRESENCE_GRACE_MS = 1000;
  // One deployment's processes share the sealing key (SECRET_KEY), as they share the database.
  const shared = {
    DATABASE_SCHEMA: schema,
    REDIS_PREFIX: `parley-${schema}`,
    PRESENCE_GRACE_MS: String(PRESENCE_GRACE_MS),
    SECRET_KEY: randomBytes(24).toString('hex'),
  };
  let a: TestServer;
  let b: TestServer;
  let wechat: WeChatDouble;

  beforeAll(async () => {
    wechat = await WeChatDouble.start();
    a = await startTestServer({ ...shared, WECHAT_API_BASE: wechat.url });
    b = await startTestServer({ ...shared, WECHAT_API_BASE: wechat.url });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await wechat.close();
    await dropSchema(schema);
  });

  it('routes a visitor on one process to an agent connected to the other, both ways, and revokes across them', async () => {
    const token = await a.login();
    const agent = await agentSocket(a, token);
    const v = await visitor(b);
    const sent = await v.say('hello from process b');
    const received = await agent.until(() => framesOf(agent, '8006').find((frame) => (frame.data as Message).onlyID === sent.onlyID));
    expect(received.data).toEqual(sent);
    expect(sent.serviceID).toBeTruthy();

    const reply = await b.post<Message>('/api/talk/send', { YQToken: v.id, msg: 'answer through process b', onlyID: onlyId() }, { token });
    expect(reply.status).toBe(200);
    await v.socket.until(() => framesOf(v.socket, '8005').find((frame) => (frame.data as Message).msg === 'answer through process b'));

    await b.get('/api/login/logOut', { token });
    await agent.frame('8000');
    expect(await agent.closed()).toBe(4403);
    v.socket.close();
  });

  it('keeps a visitor with a tab on each process online until the last tab closes', async () => {
    const token = await a.login();
    const agent = await agentSocket(a, token);
    const v = await visitor(a);
    const witness = await visitor(a);
    const about = (code: string, who = v.id) =>
      framesOf(agent, code).filter((frame) => (frame.data as { YQToken: string }).YQToken === who);
    await agent.until(() => about('8002').length > 0 && about('8002', witness.id).length > 0);
    const otherTab = await TestSocket.open(`${b.url.replace('http', 'ws')}/ws/visitor?YQToken=${v.credential}`);

    // Process a loses its tab; past the grace period it must not report the visitor gone while
    // process b still holds the other one. The witness leaves process a after that tab closed: once
    // its 8003 is in, v's grace there has run out too.
    v.socket.close();
    await v.socket.closed();
    witness.socket.close();
    await agent.until(() => about('8003', witness.id).length > 0, PRESENCE_GRACE_MS + 5000);
    expect(about('8003')).toHaveLength(0);

    otherTab.close();
    await agent.until(() => about('8003').length > 0, PRESENCE_GRACE_MS + 5000);
    agent.close();
  }, 30_000);

  it("asks WeChat for a user's typing indicator once, whichever process the agent's requests reach, and either cancels it", async () => {
    const token = await a.login();
    const channel = {
      enabled: true,
      appId: 'wx-scale-out',
      appSecret: 'secret-1',
      token: 'push-token',
      aesKey: randomBytes(32).toString('base64').slice(0, 43),
    };
    expect((await a.post('/api/settings/weChatSetting', { officialAccount: channel }, { token })).status).toBe(200);
    // Process b hears of the setting through the bus.
    await expect
      .poll(
        async () =>
          (await b.get<{ officialAccount: { enabled: boolean } }>('/api/settings/weChatSetting', { token })).body.data.officialAccount
            .enabled,
      )
      .toBe(true);
    // The agent online on process a is given the user, and only the user's agent types to them.
    const agent = await agentSocket(a, token);
    const openid = `o-${randomBytes(6).toString('hex')}`;
    const timestamp = String(Math.floor(Date.now() / 1000));
    const query = new URLSearchParams({ signature: sign(channel.token, timestamp, '7'), timestamp, nonce: '7' });
    const pushed = await fetch(`${a.url}/wechat/officialAccount?${query}`, { method: 'POST', body: textPush(openid, 'hello', '1') });
    expect(pushed.status).toBe(200);
    const user = await a.storage.db
      .selectFrom('wechat_users')
      .innerJoin('visitors', 'visitors.id', 'wechat_users.visitor_id')
      .select('visitors.public_id')
      .where('wechat_users.openid', '=', openid)
      .executeTakeFirstOrThrow();
    const answered = await a.post('/api/talk/send', { YQToken: user.public_id, msg: 'one moment', onlyID: onlyId() }, { token });
    expect(answered.status).toBe(200);
    await wechat.until(() => wechat.sent.find((item) => item.body.touser === openid && item.body.text?.content === 'one moment'));

    const calls = () => wechat.typing.filter((call) => call.touser === openid).map((call) => call.command);
    const type = (server: TestServer, typing: boolean) => server.post('/api/wechat/typing', { YQToken: user.public_id, typing }, { token });
    expect((await type(a, true)).status).toBe(200);
    await wechat.until(() => calls().length === 1);
    // The agent's next keystrokes reach the other process: WeChat still shows the indicator, nothing is asked.
    expect((await type(b, true)).status).toBe(200);
    // The draft cleared on the other process: it cancels what the first one showed.
    expect((await type(b, false)).status).toBe(200);
    await wechat.until(() => calls().length === 2);
    expect((await type(a, true)).status).toBe(200);
    await wechat.until(() => calls().length === 3);
    expect(calls()).toEqual(['Typing', 'CancelTyping', 'Typing']);
    agent.close();
  });
});
