import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoginRecord, Message } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, APP_ROOT, startTestServer, type TestServer } from './harness.js';
import { TestSocket } from './sockets.js';
import { freePort } from './waiting.js';

/**
 * deploy/nginx.conf, as the README tells people to install it, in front of a real server: Debian's nginx
 * with the file's own directives, only the upstream port, the listening ports, the host name and the
 * certificate paths put in for this machine.
 */
const NGINX = process.env.NGINX_PATH || '/usr/sbin/nginx';
const available = existsSync(NGINX);
if (!available) {
  const line = '!'.repeat(78);
  process.stderr.write(`\n${line}\n!! NGINX TEST SKIPPED: no nginx at ${NGINX} (Debian: apt-get install -y nginx-light).\n${line}\n`);
}
const required = process.env.E2E_REQUIRED === '1';

/** The address clients connect from: not the proxy's own, so the login log shows which one it recorded. */
const CLIENT_ADDRESS = '127.0.0.2';

let server: TestServer;
let nginx: ChildProcess | undefined;
let dir: string;
let certificate: Buffer;
let httpPort: number;
let httpsPort: number;

function substitute(text: string, from: string | RegExp, to: string): string {
  const replaced = text.replace(typeof from === 'string' ? new RegExp(from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g') : from, to);
  if (replaced === text) throw new Error(`deploy/nginx.conf no longer contains ${from}`);
  return replaced;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(
  port: number,
  method: string,
  path: string,
  options: { body?: Buffer | string; headers?: Record<string, string>; tls?: boolean } = {},
): Promise<Answer> {
  const tls = options.tls ?? true;
  return new Promise((resolve, reject) => {
    const send = tls ? request : httpRequest;
    const req = send(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        localAddress: CLIENT_ADDRESS,
        ...(tls ? { ca: certificate, servername: 'localhost' } : {}),
        headers: { 'accept-language': 'en', ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

async function api<T>(method: 'GET' | 'POST', path: string, body?: unknown, token?: string, headers: Record<string, string> = {}) {
  const answer = await call(httpsPort, method, path, {
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
  });
  return { status: answer.status, body: JSON.parse(answer.body) as { code: number; msg: string; data: T } };
}

function socket(path: string): Promise<TestSocket> {
  return TestSocket.open(`wss://127.0.0.1:${httpsPort}${path}`, { ca: certificate, localAddress: CLIENT_ADDRESS });
}

describe.skipIf(!available && !required)('deploy/nginx.conf in front of Parley', () => {
  beforeAll(async () => {
    if (!available) throw new Error(`E2E_REQUIRED=1 but there is no nginx at ${NGINX}`);
    server = await startTestServer({ TRUST_PROXY: '127.0.0.1' });
    dir = mkdtempSync(join(tmpdir(), 'parley-nginx-'));
    execFileSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      join(dir, 'privkey.pem'),
      '-out',
      join(dir, 'fullchain.pem'),
    ]);
    certificate = readFileSync(join(dir, 'fullchain.pem'));
    httpPort = await freePort();
    httpsPort = await freePort();
    const serverPort = new URL(server.url).port;

    let site = readFileSync(join(APP_ROOT, 'deploy/nginx.conf'), 'utf8');
    site = substitute(site, 'server 127.0.0.1:10000;', `server 127.0.0.1:${serverPort};`);
    site = substitute(site, '/etc/letsencrypt/live/chat.example.com/', `${dir}/`);
    site = substitute(site, 'chat.example.com', 'localhost');
    site = substitute(site, 'listen 80;', `listen 127.0.0.1:${httpPort};`);
    site = substitute(site, 'listen 443 ssl', `listen 127.0.0.1:${httpsPort} ssl`);
    site = substitute(site, /^\s*listen \[::\].*$/gm, '');
    writeFileSync(join(dir, 'parley.conf'), site);
    for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp));
    // One process as this user, in the foreground, with every path of its own: the machine's nginx
    // service and its files are left alone.
    writeFileSync(
      join(dir, 'nginx.conf'),
      `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/parley.conf;
}
`,
    );
    let output = '';
    nginx = spawn(NGINX, ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    nginx.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    nginx.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (nginx.exitCode !== null) throw new Error(`nginx exited with ${nginx.exitCode}: ${output}`);
      const ready = await call(httpsPort, 'GET', '/api/publicKey').catch(() => undefined);
      if (ready?.status === 200) break;
      if (Date.now() > deadline) throw new Error(`nginx did not answer in time: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }, 60_000);

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx?.once('exit', resolve));
      nginx.kill('SIGQUIT');
      await exited;
    }
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('sends plain HTTP to HTTPS', async () => {
    const answer = await call(httpPort, 'GET', '/api/publicKey', { tls: false });
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe('https://127.0.0.1/api/publicKey');
  });

  it('logs in through the proxy and records the client address it forwarded, not a forged one', async () => {
    const login = await api<{ token: string }>('POST', '/api/login', ADMIN, undefined, { 'x-forwarded-for': '203.0.113.9' });
    expect(login.status).toBe(200);
    const records = await api<{ list: LoginRecord[] }>('GET', '/api/record/getList?username=admin', undefined, login.body.data.token);
    expect(records.body.data.list[0]).toMatchObject({ username: 'admin', result: 'success', ip: CLIENT_ADDRESS });
  });

  it('upgrades both sockets and carries a conversation both ways, heartbeats included', async () => {
    const token = (await api<{ token: string }>('POST', '/api/login', ADMIN)).body.data.token;
    const agent = await socket(`/ws/agent?token=${token}`);
    await agent.frame('0000');
    agent.send({ code: '5000', type: 'service', uuid: '' });
    agent.ws.send('Y');
    await agent.until(() => agent.texts.includes('Y'));

    const init = await api<{ YQToken: string }>('POST', '/api/visitor/init', { url: 'https://shop.example/', title: 'Shop' });
    expect(init.status).toBe(200);
    const visitorToken = init.body.data.YQToken;
    const visitor = await socket(`/ws/visitor?YQToken=${visitorToken}`);
    await agent.frame('8002');

    const said = await api<Message>('POST', '/api/visitor/message', { YQToken: visitorToken, msg: 'Hello through nginx', onlyID: 'n-1' });
    expect(said.status).toBe(200);
    const incoming = (await agent.frame('8006')).data as Message;
    expect(incoming.msg).toBe('Hello through nginx');

    const answered = await api<Message>('POST', '/api/talk/send', { YQToken: incoming.YQToken, msg: 'Hello back', onlyID: 'n-2' }, token);
    expect(answered.status).toBe(200);
    const reply = (await visitor.frame('8005')).data as Message;
    expect(reply.msg).toBe('Hello back');

    agent.ws.close();
    visitor.ws.close();
  });

  it('lets a 10 MiB upload through', async () => {
    const init = await api<{ YQToken: string }>('POST', '/api/visitor/init', { url: 'https://shop.example/' });
    const form = new FormData();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    form.append('file', new Blob([png, Buffer.alloc(10 * 1024 * 1024 - png.length)]), 'large.png');
    const encoded = new Request('http://local.invalid/', { method: 'POST', body: form });
    const answer = await call(httpsPort, 'POST', `/api/visitor/upload?YQToken=${init.body.data.YQToken}`, {
      body: Buffer.from(await encoded.arrayBuffer()),
      headers: { 'content-type': encoded.headers.get('content-type') ?? '' },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).data).toMatchObject({ size: 10 * 1024 * 1024, type: 'image/png' });
  });
});
