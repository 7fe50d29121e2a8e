import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;
/** An agent whose role holds no permission at all. */
let plain: string;
/** A built widget stand-in: the chat window's page is served from it. */
const widgetDir = mkdtempSync(join(tmpdir(), 'parley-widget-'));

beforeAll(async () => {
  mkdirSync(join(widgetDir, 'chat'));
  writeFileSync(join(widgetDir, 'chat', 'index.html'), '<!doctype html><title>chat</title>');
  writeFileSync(join(widgetDir, 'widget.js'), 'void 0;');
  server = await startTestServer({ WIDGET_DIR: widgetDir, TRUST_PROXY: '127.0.0.1' });
  admin = await server.login();
  await server.post('/api/role/doEdit', { name: 'Nothing', permissions: [] }, { token: admin });
  plain = (await createAgent(server, admin, { username: 'plain', role: 'Nothing' })).token ?? '';
});
afterAll(async () => {
  await server.close();
  rmSync(widgetDir, { recursive: true, force: true });
});

/** One raw request on its own connection, answered as status, headers and body. */
function rawRequest(text: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const port = Number(new URL(server.url).port);
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const answer = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body });
    });
  });
}

describe('who may call a route is checked before its body is read', () => {
  const send = (path: string, headers: Record<string, string>, body: string | Buffer) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'accept-language': 'en', ...headers }, body });

  it('POST /api/robot/ask/import answers 401 and 403 whatever the content type', async () => {
    for (const type of ['application/xml', 'text/csv', 'application/json', 'multipart/form-data; boundary=x']) {
      const anonymous = await send('/api/robot/ask/import', { 'content-type': type }, 'question,answer');
      expect(anonymous.status, type).toBe(401);
      expect(((await anonymous.json()) as { code: number }).code).toBe(401);
      const refused = await send('/api/robot/ask/import', { 'content-type': type, authorization: `Bearer ${plain}` }, 'question,answer');
      expect(refused.status, type).toBe(403);
    }
    // The holder of the permission is the one told about the content type.
    const wrongType = await send('/api/robot/ask/import', { 'content-type': 'application/xml', authorization: `Bearer ${admin}` }, '<a/>');
    expect(wrongType.status).toBe(415);
  });

  it('every other route too: an unknown type, broken JSON or an oversized body from a stranger is a 401', async () => {
    expect((await send('/api/talk/send', { 'content-type': 'application/xml' }, '<a/>')).status).toBe(401);
    expect((await send('/api/talk/send', { 'content-type': 'application/json' }, '{"YQToken":')).status).toBe(401);
    expect((await send('/api/talk/send', { 'content-type': 'application/json' }, Buffer.alloc(1024 * 1024, 32))).status).toBe(401);
    expect((await send('/api/talk/upload', { 'content-type': 'text/plain' }, 'x')).status).toBe(401);
    expect((await send('/api/settings/appSetting', { 'content-type': 'text/plain', authorization: `Bearer ${plain}` }, 'x')).status).toBe(
      403,
    );
  });
});

describe('a HEAD or OPTIONS request changes nothing', () => {
  it('HEAD /api/refreshToken does not end the session, and GET still refreshes it', async () => {
    const token = await server.login();
    const head = await fetch(`${server.url}/api/refreshToken`, { method: 'HEAD', headers: { authorization: `Bearer ${token}` } });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('GET');
    const options = await fetch(`${server.url}/api/refreshToken`, { method: 'OPTIONS', headers: { authorization: `Bearer ${token}` } });
    expect(options.status).toBeLessThan(500);
    expect((await server.get('/api/userInfo', { token })).status).toBe(200);

    const refreshed = await server.get<{ token: string }>('/api/refreshToken', { token });
    expect(refreshed.status).toBe(200);
    expect((await server.get('/api/userInfo', { token: refreshed.body.data.token })).status).toBe(200);
    expect((await server.get('/api/userInfo', { token })).status).toBe(401);
  });

  it('HEAD /api/login/logOut does not sign out, and GET still does', async () => {
    const token = await server.login();
    const head = await fetch(`${server.url}/api/login/logOut`, { method: 'HEAD', headers: { authorization: `Bearer ${token}` } });
    expect(head.status).toBe(405);
    expect((await server.get('/api/userInfo', { token })).status).toBe(200);
    expect((await server.get('/api/login/logOut', { token })).status).toBe(200);
    expect((await server.get('/api/userInfo', { token })).status).toBe(401);
  });

  it('no GET route of the API runs its handler for a HEAD', async () => {
    for (const key of server.app.apiRoutes.declared.keys()) {
      const [method, path = ''] = key.split(' ');
      if (method !== 'GET' || path.includes(':')) continue;
      const head = await fetch(`${server.url}${path}`, { method: 'HEAD', headers: { authorization: `Bearer ${admin}` } });
      expect(head.status, path).toBe(405);
    }
  });
});

describe('security headers', () => {
  const directives = (policy: string | null) =>
    new Map(
      (policy ?? '').split(';').map((part) => {
        const [name = '', ...values] = part.trim().split(/\s+/);
        return [name, values.join(' ')] as const;
      }),
    );

  it('the chat window, the console and the API forbid plugins and a foreign <base>', async () => {
    for (const path of ['/chat', '/chat/', '/', '/api/publicKey']) {
      const response = await fetch(`${server.url}${path}`);
      const policy = directives(response.headers.get('content-security-policy'));
      expect(policy.get('object-src'), path).toBe("'none'");
      expect(policy.get('base-uri'), path).toBe("'self'");
    }
    // The chat window stays framable by the sites that embed it.
    expect(directives((await fetch(`${server.url}/chat`)).headers.get('content-security-policy')).get('frame-ancestors')).toBe('*');
  });

  it('HSTS only on a request that came over HTTPS, told by a trusted proxy', async () => {
    const plainHttp = await fetch(`${server.url}/api/publicKey`);
    expect(plainHttp.headers.get('strict-transport-security')).toBeNull();
    const console = await fetch(`${server.url}/`);
    expect(console.headers.get('strict-transport-security')).toBeNull();
    const viaProxy = await fetch(`${server.url}/api/publicKey`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(viaProxy.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
  });

  it('HSTS is not taken from a client that is not a trusted proxy', async () => {
    const direct = await startTestServer();
    try {
      const spoofed = await fetch(`${direct.url}/api/publicKey`, { headers: { 'x-forwarded-proto': 'https' } });
      expect(spoofed.headers.get('strict-transport-security')).toBeNull();
    } finally {
      await direct.close();
    }
  });
});

describe('headers too large', () => {
  it('answer 431 in the JSON envelope, in the request language', async () => {
    for (const [lang, msg] of [
      ['en', 'Request headers too large'],
      ['zh', '请求头过大'],
    ] as const) {
      const answer = await rawRequest(
        `GET /api/userInfo HTTP/1.1\r\nHost: localhost\r\nAccept-Language: ${lang}\r\nX-Padding: ${'a'.repeat(64 * 1024)}\r\n\r\n`,
      );
      expect(answer.status).toBe(431);
      expect(answer.headers.toLowerCase()).toContain('content-type: application/json');
      expect(answer.headers.toLowerCase()).toContain('cache-control: no-store');
      expect(JSON.parse(answer.body)).toEqual({ code: 431, msg, data: null });
    }
  });

  it('a malformed request line answers 400 in the envelope', async () => {
    const answer = await rawRequest('NOT A REQUEST\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 400, data: null });
  });
});

describe('Cache-Control of the API', () => {
  it('is no-store on every JSON answer: success, refusal, error and not found', async () => {
    expect((await server.get('/api/publicKey')).headers.get('cache-control')).toBe('no-store');
    expect((await server.get('/api/userInfo', { token: admin })).headers.get('cache-control')).toBe('no-store');
    expect((await server.get('/api/userInfo')).headers.get('cache-control')).toBe('no-store');
    expect((await server.get('/api/service/getList', { token: plain })).headers.get('cache-control')).toBe('no-store');
    expect((await server.post('/api/login', { username: 'x' })).headers.get('cache-control')).toBe('no-store');
    expect((await server.get('/api/no/such/route')).headers.get('cache-control')).toBe('no-store');
  });

  it('is no-store on exports sent as attachments', async () => {
    for (const path of ['/api/history/export', '/api/robot/ask/export']) {
      const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${admin}` } });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('cache-control'), path).toBe('no-store');
      await response.arrayBuffer();
    }
  });
});
