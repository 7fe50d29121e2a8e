import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onlyId, visitor } from './chat-harness.js';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;
beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082',
  'hex',
);

async function upload(path: string, file: Blob, name: string, token?: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append('file', file, name);
  const response = await fetch(server.url + path, {
    method: 'POST',
    body: form,
    headers: token ? { authorization: `Bearer ${token}`, 'accept-language': 'en' } : { 'accept-language': 'en' },
  });
  return {
    status: response.status,
    body: (await response.json()) as { code: number; msg: string; data: { url: string; name: string; size: number; type: string } },
  };
}

describe('POST /api/visitor/upload', () => {
  it('stores an image and serves it back with its sniffed type, inline', async () => {
    const v = await visitor(server);
    const sent = await upload(`/api/visitor/upload?YQToken=${v.token}`, new Blob([PNG]), 'dot.png');
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ name: 'dot.png', size: PNG.length, type: 'image/png' });
    expect(sent.body.data.url).toMatch(/^\/api\/files\/[\w-]{24}\.png\/dot\.png$/);
    const served = await fetch(server.url + sent.body.data.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);

    const message = await server.post<{ type: string; msg: string }>('/api/visitor/message', {
      YQToken: v.token,
      msg: sent.body.data.url,
      onlyID: onlyId(),
      type: 'image',
    });
    expect(message.body.data).toMatchObject({ type: 'image', msg: sent.body.data.url });
    v.socket.close();
  });

  it('accepts the token as a form field sent before the file, and serves documents as attachments', async () => {
    const v = await visitor(server);
    const sent = await upload('/api/visitor/upload', new Blob(['plain words']), 'notes.txt', undefined, { YQToken: v.token });
    expect(sent.status).toBe(200);
    const served = await fetch(server.url + sent.body.data.url);
    expect(served.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''notes.txt");
    v.socket.close();
  });

  it('refuses unknown visitors, disguised or unaccepted types, and files over the limit', async () => {
    const v = await visitor(server);
    expect((await upload(`/api/visitor/upload?YQToken=${'C'.repeat(24)}`, new Blob([PNG]), 'dot.png')).status).toBe(401);
    const html = await upload(`/api/visitor/upload?YQToken=${v.token}`, new Blob(['<script>alert(1)</script>']), 'page.png');
    expect(html.status).toBe(400);
    expect(html.body.msg).toBe('This type of file is not accepted');
    expect((await upload(`/api/visitor/upload?YQToken=${v.token}`, new Blob(['<svg onload="alert(1)"/>']), 'image.svg')).status).toBe(400);
    const big = await upload(`/api/visitor/upload?YQToken=${v.token}`, new Blob([PNG, Buffer.alloc(10 * 1024 * 1024 + 1)]), 'big.png');
    expect(big.status).toBe(413);
    const none = await fetch(`${server.url}/api/visitor/upload?YQToken=${v.token}`, { method: 'POST', body: new FormData() });
    expect(none.status).toBe(400);
    expect((await fetch(`${server.url}/api/files/..%2F..%2Fparley.db`)).status).toBe(404);
    v.socket.close();
  });
});

describe('POST /api/talk/upload', () => {
  it('answers 401 without a token and stores for an agent', async () => {
    expect((await upload('/api/talk/upload', new Blob([PNG]), 'dot.png')).status).toBe(401);
    const sent = await upload('/api/talk/upload', new Blob([PNG]), 'dot.png', admin);
    expect(sent.status).toBe(200);
    expect(sent.body.data.type).toBe('image/png');
  });
});

describe('upload names', () => {
  const ZIP = Buffer.concat([Buffer.from('504b0304', 'hex'), Buffer.alloc(60)]);
  const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');

  it('drops bidi and control characters, separators and leading dots, and serves the sniffed extension', async () => {
    const v = await visitor(server);
    const cases: [Buffer, string, string][] = [
      // Shown as "invoiceexe.pdf" by a bidi-aware viewer, really a ZIP named ….exe.
      [ZIP, 'invoice\u202Efdp.exe', 'invoicefdp.zip'],
      [ZIP, 'x.exe', 'x.zip'],
      [PNG, '../..\\secret\u2066\u200F\u061C\u0000.png', 'secret.png'],
      [PNG, '.hidden', 'hidden.png'],
      [PDF, '报告 2026.PDF', '报告 2026.PDF'],
    ];
    for (const [bytes, original, expected] of cases) {
      const sent = await upload(`/api/visitor/upload?YQToken=${v.token}`, new Blob([bytes]), original);
      expect(sent.status).toBe(200);
      expect(sent.body.data.name).toBe(expected);
      const [, , , stored, label] = sent.body.data.url.split('/');
      expect(stored?.slice(stored.lastIndexOf('.'))).toBe(expected.slice(expected.lastIndexOf('.')).toLowerCase());
      expect(decodeURIComponent(label ?? '')).toBe(expected);
      const served = await fetch(server.url + sent.body.data.url);
      const disposition = served.headers.get('content-disposition') ?? '';
      expect(decodeURIComponent(disposition.slice(disposition.indexOf("UTF-8''") + 7))).toBe(expected);
      await served.arrayBuffer();
    }
    v.socket.close();
  });
});
