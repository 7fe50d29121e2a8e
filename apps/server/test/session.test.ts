import { constants, createPublicKey, generateKeyPairSync, publicEncrypt } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PERMISSIONS } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLoginKeys } from '../src/modules/auth/rsa.js';
import { ADMIN, createAgent, type ManualClock, manualClock, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const keyBits = (publicKey: string) =>
  createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' }).asymmetricKeyDetails?.modulusLength ?? 0;

/** Encrypts like the seed's client: JSON in chunks of the key's size less 11 bytes, blocks joined, base64. */
function encryptLogin(publicKey: string, payload: unknown): string {
  const pem = `-----BEGIN PUBLIC KEY-----\n${publicKey.match(/.{1,64}/g)?.join('\n')}\n-----END PUBLIC KEY-----\n`;
  const clear = Buffer.from(JSON.stringify(payload));
  const chunk = keyBits(publicKey) / 8 - 11;
  const blocks: Buffer[] = [];
  for (let offset = 0; offset < clear.length; offset += chunk) {
    blocks.push(publicEncrypt({ key: pem, padding: constants.RSA_PKCS1_PADDING }, clear.subarray(offset, offset + chunk)));
  }
  return Buffer.concat(blocks).toString('base64');
}

describe('POST /api/login', () => {
  it('answers a token for good credentials and 401 for bad ones, in the asked language', async () => {
    const good = await server.post<{ token: string }>('/api/login', ADMIN);
    expect(good.status).toBe(200);
    expect(good.body.code).toBe(200);
    expect(good.body.data.token).toMatch(/^[\w-]{40,}$/);

    const bad = await server.post('/api/login', { username: ADMIN.username, password: 'wrong-password' }, { lang: 'en' });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ code: 401, msg: 'Wrong username or password', data: null });
    const badZh = await server.post('/api/login', { username: 'nobody', password: 'whatever' }, { lang: 'zh' });
    expect(badZh.status).toBe(401);
    expect(badZh.body.msg).toBe('账号或密码不正确');
  });

  it('answers 400 naming the missing field', async () => {
    const response = await server.post('/api/login', { username: 'admin' });
    expect(response.status).toBe(400);
    expect(response.body.msg).toContain('password');
    const notJson = await server.post('/api/login', '{"username":', {});
    expect(notJson.status).toBe(400);
    expect(notJson.body.code).toBe(400);
  });

  it('accepts the encrypted payload made with /api/publicKey', async () => {
    const key = await server.get<{ publicKey: string; mockServer: boolean }>('/api/publicKey');
    expect(key.body.data.mockServer).toBe(false);
    expect(keyBits(key.body.data.publicKey)).toBe(2048);
    const param = encryptLogin(key.body.data.publicKey, { username: ADMIN.username, password: ADMIN.password, padding: 'x'.repeat(400) });
    const response = await server.post<{ token: string }>('/api/login', { param });
    expect(response.status).toBe(200);
    expect(response.body.data.token).toBeTruthy();

    const tampered = await server.post('/api/login', { param: Buffer.alloc(256, 7).toString('base64') });
    expect(tampered.status).toBe(400);
    const wrongPassword = await server.post('/api/login', {
      param: encryptLogin(key.body.data.publicKey, { username: 'admin', password: 'nope-nope' }),
    });
    expect(wrongPassword.status).toBe(401);
  });

  it('replaces a 1024-bit key left in DATA_DIR with a 2048-bit one, and says so', () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-key-'));
    try {
      const old = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
      writeFileSync(join(dir, 'login-key.pem'), old.export({ type: 'pkcs8', format: 'pem' }));
      const replaced: number[] = [];
      const keys = loadLoginKeys(dir, (bits) => replaced.push(bits));
      expect(replaced).toEqual([1024]);
      expect(keyBits(keys.publicKey)).toBe(2048);
      expect(JSON.parse(keys.decrypt(encryptLogin(keys.publicKey, { a: 'x'.repeat(600) })))).toEqual({ a: 'x'.repeat(600) });
      // The new key is kept: the next start loads it as it is.
      expect(loadLoginKeys(dir, (bits) => replaced.push(bits)).publicKey).toBe(keys.publicKey);
      expect(replaced).toEqual([1024]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes every attempt to the login log with address, user agent, result and reason', async () => {
    await server.post('/api/login', { username: 'ghost-user', password: 'whatever' }, { headers: { 'user-agent': 'LogCheck/1.0' } });
    const token = await server.login();
    const log = await server.get<{ list: { username: string; ip: string; userAgent: string; result: string; reason: string }[] }>(
      '/api/record/getList?username=ghost-user',
      { token },
    );
    expect(log.body.data.list[0]).toMatchObject({
      username: 'ghost-user',
      ip: '127.0.0.1',
      userAgent: 'LogCheck/1.0',
      result: 'failure',
      reason: 'unknown_user',
    });
    const successes = await server.get<{ list: { result: string }[]; total: number }>('/api/record/getList?username=admin&result=success', {
      token,
    });
    expect(successes.body.data.total).toBeGreaterThan(0);
    expect(successes.body.data.list.every((row) => row.result === 'success')).toBe(true);
  });
});

describe('GET /api/userInfo', () => {
  it('answers 401 without a token and with a made-up one', async () => {
    expect((await server.get('/api/userInfo')).status).toBe(401);
    expect((await server.get('/api/userInfo', { token: 'made-up-token' })).status).toBe(401);
  });

  it('tells username, avatar, roles and permissions; Admin holds every permission', async () => {
    const token = await server.login();
    const response = await server.get<{ username: string; avatar: string; roles: string[]; permissions: string[] }>('/api/userInfo', {
      token,
    });
    expect(response.status).toBe(200);
    expect(response.body.data.username).toBe('admin');
    expect(typeof response.body.data.avatar).toBe('string');
    expect(response.body.data.roles).toEqual(['Admin']);
    expect([...response.body.data.permissions].sort()).toEqual([...PERMISSIONS].sort());
  });

  it('gives an Agent only the role permissions', async () => {
    const admin = await server.login();
    const { token } = await createAgent(server, admin, { username: 'info-agent' });
    const response = await server.get<{ roles: string[]; permissions: string[] }>('/api/userInfo', { token });
    expect(response.body.data.roles).toEqual(['Agent']);
    expect(response.body.data.permissions).toEqual(['seePermissions:seeHistorical']);
  });
});

describe('GET /api/login/logOut', () => {
  it('answers 401 without a token', async () => {
    expect((await server.get('/api/login/logOut')).status).toBe(401);
  });

  it('revokes the token at once', async () => {
    const token = await server.login();
    const out = await server.get('/api/login/logOut', { token });
    expect(out.status).toBe(200);
    expect(out.body.data).toBeNull();
    expect((await server.get('/api/userInfo', { token })).status).toBe(401);
    expect((await server.get('/api/refreshToken', { token })).status).toBe(401);
  });
});

describe('POST /api/register', () => {
  it('creates a disabled account that cannot log in until an administrator enables it', async () => {
    const created = await server.post<{ id: number }>('/api/register', {
      username: 'newcomer',
      password: 'secret-pass-123',
      nickname: 'New',
    });
    expect(created.status).toBe(200);
    const login = await server.post('/api/login', { username: 'newcomer', password: 'secret-pass-123' });
    expect(login.status).toBe(401);
    expect(login.body.msg).toBe('This account is disabled or not yet enabled');

    const admin = await server.login();
    const notices = await server.get<{ list: { kind: string; url: string }[] }>('/api/notice/getList', { token: admin });
    expect(notices.body.data.list.some((notice) => notice.kind === 'registration')).toBe(true);

    const agents = await server.get<{ list: { id: number; username: string; roleId: number; pending: boolean }[] }>(
      '/api/service/getList?username=newcomer',
      { token: admin },
    );
    const account = agents.body.data.list[0];
    expect(account).toMatchObject({ username: 'newcomer', pending: true });
    const enabled = await server.post(
      '/api/service/doEdit',
      { id: account?.id, username: 'newcomer', nickname: 'New', roleId: account?.roleId, disabled: false },
      { token: admin },
    );
    expect(enabled.status).toBe(200);
    expect((await server.post('/api/login', { username: 'newcomer', password: 'secret-pass-123' })).status).toBe(200);
  });

  it('answers 409 for a taken username and 400 for a short password', async () => {
    expect((await server.post('/api/register', { username: 'admin', password: 'secret-pass-123' })).status).toBe(409);
    const short = await server.post('/api/register', { username: 'shorty', password: '123' });
    expect(short.status).toBe(400);
    expect(short.body.msg).toContain('password');
  });
});

describe('GET /api/sendCode and POST /api/socialLogin', () => {
  it('say clearly that no provider is configured', async () => {
    const sms = await server.get('/api/sendCode?phone=13800000000', { lang: 'en' });
    expect(sms.status).toBe(503);
    expect(sms.body.msg).toBe('SMS code login is not configured');
    const social = await server.post('/api/socialLogin', { code: 'abc' }, { lang: 'zh' });
    expect(social.status).toBe(503);
    expect(social.body.msg).toBe('第三方登录尚未配置');
  });
});

describe('token lifetime', () => {
  let short: TestServer;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = manualClock();
    short = await startTestServer({ TOKEN_TTL: '1', REFRESH_TTL: '3' }, { authNow: clock.now });
  });
  afterAll(() => short.close());

  it('expires into 402, refreshes once into a working token, and after REFRESH_TTL answers 401', async () => {
    const token = await short.login();
    expect((await short.get('/api/userInfo', { token })).status).toBe(200);
    clock.advance(1100);
    const expired = await short.get('/api/userInfo', { token });
    expect(expired.status).toBe(402);
    expect(expired.body.code).toBe(402);

    const refreshed = await short.get<{ token: string }>('/api/refreshToken', { token });
    expect(refreshed.status).toBe(200);
    const fresh = refreshed.body.data.token;
    expect(fresh).not.toBe(token);
    expect((await short.get('/api/userInfo', { token: fresh })).status).toBe(200);
    // The old token is dead, even for another refresh.
    expect((await short.get('/api/userInfo', { token })).status).toBe(401);
    expect((await short.get('/api/refreshToken', { token })).status).toBe(401);

    clock.advance(2100);
    expect((await short.get('/api/userInfo', { token: fresh })).status).toBe(401);
    expect((await short.get('/api/refreshToken', { token: fresh })).status).toBe(401);
  });

  it('lets only one of two racing refreshes win', async () => {
    const token = await short.login();
    const [a, b] = await Promise.all([short.get('/api/refreshToken', { token }), short.get('/api/refreshToken', { token })]);
    expect([a.status, b.status].sort()).toEqual([200, 401]);
  });
});

describe('failed-login limit', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer();
  });
  afterAll(() => limited.close());

  it('answers 429 after 10 failures in 15 minutes, even for the right password, and logs it', async () => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const response = await limited.post('/api/login', { username: 'admin', password: `wrong-${attempt}` });
      expect(response.status).toBe(401);
    }
    const blocked = await limited.post('/api/login', ADMIN, { lang: 'en' });
    expect(blocked.status).toBe(429);
    expect(blocked.body.msg).toMatch(/Too many failed logins, try again in \d+ minutes/);
    // One account's failures do not lock the address out of other accounts (that takes 50 failures).
    expect((await limited.post('/api/login', { username: 'someone-else', password: 'whatever' })).status).toBe(401);

    const rows = await limited.storage.db.selectFrom('login_log').select(['reason']).where('reason', '=', 'rate_limited').execute();
    expect(rows.length).toBe(1);
  });
});
