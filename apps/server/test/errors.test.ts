import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;
beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

describe('the envelope on errors', () => {
  it('answers unknown /api paths with a JSON 404 in the asked language', async () => {
    const en = await server.get('/api/no/such/thing', { lang: 'en' });
    expect(en.status).toBe(404);
    expect(en.body).toEqual({ code: 404, msg: 'No such endpoint: /api/no/such/thing', data: null });
    const zh = await server.post('/api/nothing-here', {}, { lang: 'zh' });
    expect(zh.status).toBe(404);
    expect(zh.body.msg).toBe('接口不存在：/api/nothing-here');
  });

  it('answers 413 for an oversized body and 400 for broken JSON', async () => {
    const huge = await server.post('/api/login', { username: 'a', password: 'x'.repeat(400_000) });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ code: 413, msg: 'Request body too large', data: null });
    const broken = await server.post('/api/role/doEdit', '{"name": ', { token: admin });
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe(400);
  });

  it('names the field in 400s, in Chinese by default', async () => {
    const response = await server.post(
      '/api/role/doEdit',
      { name: '', permissions: [] },
      { token: admin, headers: { 'accept-language': '' } },
    );
    expect(response.status).toBe(400);
    expect(response.body.msg).toBe('字段 name 无效：必填');
    const en = await server.post('/api/role/doEdit', { name: 'x', permissions: 'all' }, { token: admin, lang: 'en' });
    expect(en.body.msg).toBe('Invalid field permissions: must be of type array');
  });

  it('answers 500 without internals when the database fails', async () => {
    const closing = await import('./harness.js').then(({ startTestServer }) => startTestServer());
    const token = await closing.login();
    // Break the storage under the running app: the next query fails inside the driver.
    await closing.storage.db.schema.dropTable('login_log').execute();
    const response = await closing.get('/api/record/getList', { token });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ code: 500, msg: 'Internal server error, please try again later', data: null });
    expect(JSON.stringify(response.body)).not.toMatch(/login_log|SQL|stack|at /i);
    await closing.close();
  });
});

describe('security headers', () => {
  it('sends a content security policy and no-sniff on API answers', async () => {
    const response = await fetch(`${server.url}/api/publicKey`);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows cross-origin calls only on the visitor API', async () => {
    const agentSide = await fetch(`${server.url}/api/login`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(agentSide.headers.get('access-control-allow-origin')).toBeNull();
    const visitorSide = await fetch(`${server.url}/api/visitor/init`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(visitorSide.headers.get('access-control-allow-origin')).toBe('https://shop.example');
  });
});

describe('TRUST_PROXY', () => {
  it('records the forwarded client address only when the proxy is trusted', async () => {
    const proxied = await startTestServer({ TRUST_PROXY: '127.0.0.1' });
    await proxied.post(
      '/api/login',
      { username: 'behind-proxy', password: 'wrong-one' },
      { headers: { 'x-forwarded-for': '203.0.113.9' } },
    );
    await server.post('/api/login', { username: 'not-proxied', password: 'wrong-one' }, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    const trusted = await proxied.storage.db
      .selectFrom('login_log')
      .select('ip')
      .where('username', '=', 'behind-proxy')
      .executeTakeFirstOrThrow();
    const direct = await server.storage.db
      .selectFrom('login_log')
      .select('ip')
      .where('username', '=', 'not-proxied')
      .executeTakeFirstOrThrow();
    expect(trusted.ip).toBe('203.0.113.9');
    expect(direct.ip).toBe('127.0.0.1');
    await proxied.close();
  });
});
