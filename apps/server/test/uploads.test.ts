import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UploadRepository } from '../src/modules/uploads/repository.js';
import { UploadSweeper } from '../src/modules/uploads/sweep.js';
import { onlyId, visitor } from './chat-harness.js';
import { startTestServer, type TestServer } from './harness.js';
import { waitFor } from './waiting.js';

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

async function upload(path: string, file: Blob, name: string, token?: string, fields: Record<string, string> = {}, on = server) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append('file', file, name);
  const response = await fetch(on.url + path, {
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
    const sent = await upload(`/api/visitor/upload?YQToken=${v.credential}`, new Blob([PNG]), 'dot.png');
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ name: 'dot.png', size: PNG.length, type: 'image/png' });
    expect(sent.body.data.url).toMatch(/^\/api\/files\/[\w-]{24}\.png\/dot\.png$/);
    const served = await fetch(server.url + sent.body.data.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);

    const message = await server.post<{ type: string; msg: string }>('/api/visitor/message', {
      YQToken: v.credential,
      msg: sent.body.data.url,
      onlyID: onlyId(),
      type: 'image',
    });
    expect(message.body.data).toMatchObject({ type: 'image', msg: sent.body.data.url });
    v.socket.close();
  });

  it('accepts the token as a form field sent before the file, and serves documents as attachments', async () => {
    const v = await visitor(server);
    const sent = await upload('/api/visitor/upload', new Blob(['plain words']), 'notes.txt', undefined, { YQToken: v.credential });
    expect(sent.status).toBe(200);
    const served = await fetch(server.url + sent.body.data.url);
    expect(served.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''notes.txt");
    v.socket.close();
  });

  it('refuses unknown visitors, disguised or unaccepted types, and files over the limit', async () => {
    const v = await visitor(server);
    expect((await upload(`/api/visitor/upload?YQToken=${'C'.repeat(24)}`, new Blob([PNG]), 'dot.png')).status).toBe(401);
    const html = await upload(`/api/visitor/upload?YQToken=${v.credential}`, new Blob(['<script>alert(1)</script>']), 'page.png');
    expect(html.status).toBe(400);
    expect(html.body.msg).toBe('This type of file is not accepted');
    expect((await upload(`/api/visitor/upload?YQToken=${v.credential}`, new Blob(['<svg onload="alert(1)"/>']), 'image.svg')).status).toBe(
      400,
    );
    const big = await upload(`/api/visitor/upload?YQToken=${v.credential}`, new Blob([PNG, Buffer.alloc(10 * 1024 * 1024 + 1)]), 'big.png');
    expect(big.status).toBe(413);
    const none = await fetch(`${server.url}/api/visitor/upload?YQToken=${v.credential}`, { method: 'POST', body: new FormData() });
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
      const sent = await upload(`/api/visitor/upload?YQToken=${v.credential}`, new Blob([bytes]), original);
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

/** A PNG of `size` bytes: the signature is all the type check reads. */
const pngOf = (size: number) => new Blob([PNG, Buffer.alloc(size - PNG.length)]);

describe('upload quotas', () => {
  const KB = 100_000;
  let quoted: TestServer;
  beforeAll(async () => {
    quoted = await startTestServer({
      UPLOAD_VISITOR_DAILY_BYTES: String(3 * KB),
      UPLOAD_ADDRESS_DAILY_BYTES: String(7 * KB),
      UPLOAD_TOTAL_BYTES: String(10 * KB),
    });
  });
  afterAll(() => quoted.close());

  const uploadsDir = () => join(quoted.config.dataDir, 'uploads');
  const storedBytes = async () => {
    const rows = await quoted.storage.db.selectFrom('uploads').select('size').execute();
    return rows.reduce((sum, row) => sum + Number(row.size), 0);
  };
  async function untilRefused(path: string, token?: string) {
    let accepted = 0;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const sent = await upload(path, pngOf(KB), 'part.png', token, {}, quoted);
      if (sent.status !== 200) return { accepted, refused: sent };
      accepted += 1;
    }
    throw new Error('never refused');
  }

  it('hold per visitor (parallel uploads included), per address across tokens, and in total', async () => {
    // Eight parallel uploads from one visitor: at most its 3 × 100 kB get through.
    const first = await visitor(quoted);
    const parallel = await Promise.all(
      Array.from({ length: 8 }, () =>
        upload(`/api/visitor/upload?YQToken=${first.credential}`, pngOf(KB), 'part.png', undefined, {}, quoted),
      ),
    );
    const accepted = parallel.filter((sent) => sent.status === 200).length;
    expect(accepted).toBeGreaterThanOrEqual(1);
    expect(accepted).toBeLessThanOrEqual(3);
    for (const sent of parallel.filter((item) => item.status !== 200)) {
      expect(sent.status).toBe(429);
      expect(sent.body.msg).toBe('Upload limit reached (0.29 MB per visitor per day); try again tomorrow');
    }
    expect(await storedBytes()).toBeLessThanOrEqual(3 * KB);

    // One after another, a visitor stops at its quota.
    const second = await visitor(quoted);
    const own = await untilRefused(`/api/visitor/upload?YQToken=${second.credential}`);
    expect(own.accepted).toBe(3);
    expect(own.refused.status).toBe(429);
    expect(own.refused.body.msg).toContain('per visitor per day');

    // New tokens from the same address stop at the address's quota.
    let byAddress = 0;
    let refusal: Awaited<ReturnType<typeof untilRefused>>['refused'] | undefined;
    for (let fresh = 0; fresh < 5 && !refusal; fresh += 1) {
      const next = await visitor(quoted);
      const result = await untilRefused(`/api/visitor/upload?YQToken=${next.credential}`);
      byAddress += result.accepted;
      if (result.refused.body.msg.includes('per address')) refusal = result.refused;
      next.socket.close();
    }
    expect(refusal?.status).toBe(429);
    expect(refusal?.body.msg).toBe('Upload limit reached (0.67 MB per address per day); try again tomorrow');
    expect(accepted + own.accepted + byAddress).toBe(7);

    // Agents are not held by the address quota, but by the total.
    const admin = await quoted.login();
    const agents = await untilRefused('/api/talk/upload', admin);
    expect(agents.accepted).toBe(3);
    expect(agents.refused.status).toBe(429);
    expect(agents.refused.body.msg).toBe('File storage is full (limit 0.95 MB); try again later');
    expect(await storedBytes()).toBe(10 * KB);
    // Nothing refused was left on disk.
    expect(readdirSync(uploadsDir())).toHaveLength(10);
    first.socket.close();
    second.socket.close();
  });

  it('counts an IPv6 client by its /64', async () => {
    const proxied = await startTestServer({ TRUST_PROXY: '127.0.0.1', UPLOAD_ADDRESS_DAILY_BYTES: String(2 * KB) });
    const from = async (address: string) => {
      const v = await visitor(proxied);
      const form = new FormData();
      form.append('file', pngOf(KB), 'part.png');
      const response = await fetch(`${proxied.url}/api/visitor/upload?YQToken=${v.credential}`, {
        method: 'POST',
        body: form,
        headers: { 'x-forwarded-for': address, 'accept-language': 'en' },
      });
      v.socket.close();
      return { status: response.status, msg: ((await response.json()) as { msg: string }).msg };
    };
    try {
      expect((await from('2001:db8:1:2::a')).status).toBe(200);
      expect((await from('2001:DB8:1:2:ffff:0:0:b')).status).toBe(200);
      const third = await from('2001:db8:1:2:1234::c');
      expect(third.status).toBe(429);
      expect(third.msg).toContain('per address');
      expect((await from('2001:db8:1:3::a')).status).toBe(200);
      expect((await from('::ffff:192.0.2.7')).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  it('refuses uploads while the disk has less free space than the floor', async () => {
    const low = await startTestServer({ UPLOAD_MIN_FREE_BYTES: String(Number.MAX_SAFE_INTEGER) });
    try {
      const v = await visitor(low);
      const sent = await upload(`/api/visitor/upload?YQToken=${v.credential}`, new Blob([PNG]), 'dot.png', undefined, {}, low);
      expect(sent.status).toBe(429);
      expect(sent.body.msg).toContain('disk space');
      v.socket.close();
    } finally {
      await low.close();
    }
  });
});

/** A server that sweeps ten times a second (uploads older than an hour go), a visitor, and a way to upload a PNG. */
async function sweptServer() {
  const swept = await startTestServer({ UPLOAD_SWEEP_INTERVAL: '0.1', UPLOAD_SWEEP_GRACE: '3600', LOG_LEVEL: 'warn' });
  const v = await visitor(swept);
  const dir = join(swept.config.dataDir, 'uploads');
  const send = async () =>
    (await upload(`/api/visitor/upload?YQToken=${v.credential}`, new Blob([PNG]), 'dot.png', undefined, {}, swept)).body.data;
  return { swept, v, dir, send };
}

describe('upload sweep', () => {
  it('removes old unreferenced uploads, files without a row and stale temporaries, and keeps the rest', async () => {
    const { swept, v, dir, send } = await sweptServer();
    try {
      const referenced = await send();
      const unreferenced = await send();
      const young = await send();
      await swept.post('/api/visitor/message', { YQToken: v.credential, msg: referenced.url, onlyID: onlyId(), type: 'image' });
      const fileOf = (url: string) => join(dir, url.split('/')[3] ?? '');

      // Two days old: the referenced upload, the unreferenced one, a file with no row and a temporary.
      const old = new Date(Date.now() - 2 * 24 * 3600 * 1000);
      await swept.storage.db
        .updateTable('uploads')
        .set({ created_at: old.toISOString() })
        .where('name', 'in', [referenced.url.split('/')[3] ?? '', unreferenced.url.split('/')[3] ?? ''])
        .execute();
      const orphan = join(dir, `${'A'.repeat(24)}.png`);
      const staleTemporary = join(dir, '.incoming-0123456789abcdef01234567');
      const freshTemporary = join(dir, '.incoming-fedcba9876543210fedcba98');
      for (const path of [orphan, staleTemporary, freshTemporary]) writeFileSync(path, PNG);
      utimesSync(orphan, old, old);
      utimesSync(staleTemporary, old, old);

      await waitFor(() => !existsSync(fileOf(unreferenced.url)) && !existsSync(orphan) && !existsSync(staleTemporary), 15_000, 'the sweep');
      const gone = await fetch(swept.url + unreferenced.url);
      expect(gone.status).toBe(404);
      await gone.arrayBuffer();
      for (const kept of [referenced, young]) {
        const served = await fetch(swept.url + kept.url);
        expect(served.status).toBe(200);
        await served.arrayBuffer();
      }
      expect(existsSync(freshTemporary)).toBe(true);
    } finally {
      v.socket.close();
      await swept.close();
    }
  });

  it('marks an upload an image message holds once, keeps it without checking again, and does not count a text message', async () => {
    const { swept, v, dir, send } = await sweptServer();
    try {
      const nameOf = (url: string) => url.split('/')[3] ?? '';
      const referencedOf = async (url: string) =>
        (await swept.storage.db.selectFrom('uploads').select('referenced').where('name', '=', nameOf(url)).executeTakeFirst())?.referenced;
      const age = (url: string) =>
        swept.storage.db
          .updateTable('uploads')
          .set({ created_at: new Date(Date.now() - 2 * 24 * 3600 * 1000).toISOString() })
          .where('name', '=', nameOf(url))
          .execute();

      const pictured = await send();
      const quoted = await send();
      const image = await swept.post<{ id: number }>('/api/visitor/message', {
        YQToken: v.credential,
        msg: pictured.url,
        onlyID: onlyId(),
        type: 'image',
      });
      expect(image.status).toBe(200);
      // Only image and file messages show an upload; a text that quotes its address does not keep it.
      expect((await v.say(`look: ${swept.url}${quoted.url}`)).type).toBe('text');
      await age(pictured.url);
      await age(quoted.url);

      await waitFor(async () => (await referencedOf(pictured.url)) === 1, 15_000, 'the image message to mark its upload');
      await waitFor(() => !existsSync(join(dir, nameOf(quoted.url))), 15_000, 'the sweep of the upload only a text quotes');
      expect(await referencedOf(quoted.url)).toBeUndefined();

      // Once marked, the upload is not checked against messages again: with its message gone it stays,
      // while a later sweep removes another old unreferenced upload.
      await swept.storage.db.deleteFrom('messages').where('type', '=', 'image').execute();
      const later = await send();
      await age(later.url);
      await waitFor(() => !existsSync(join(dir, nameOf(later.url))), 15_000, 'a later sweep');
      expect(existsSync(join(dir, nameOf(pictured.url)))).toBe(true);
      expect(await referencedOf(pictured.url)).toBe(1);
    } finally {
      v.socket.close();
      await swept.close();
    }
  });
});

describe('upload sweep and the pictures settings, avatars and robot pairs show', () => {
  /**
   * Two days old, an agent's upload shown by `show` survives a sweep that removes another old upload;
   * once `show` names a newer upload instead, the first one goes and the newer one stays.
   */
  async function keptWhileShown(show: (swept: TestServer, token: string, url: string) => Promise<void>) {
    const { swept, v, dir } = await sweptServer();
    try {
      const token = await swept.login();
      const agentUpload = async () => (await upload('/api/talk/upload', new Blob([PNG]), 'picture.png', token, {}, swept)).body.data.url;
      const nameOf = (url: string) => url.split('/')[3] ?? '';
      const onDisk = (url: string) => existsSync(join(dir, nameOf(url)));
      const age = (...urls: string[]) =>
        swept.storage.db
          .updateTable('uploads')
          .set({ created_at: new Date(Date.now() - 2 * 24 * 3600 * 1000).toISOString() })
          .where('name', 'in', urls.map(nameOf))
          .execute();
      const served = async (url: string) => {
        const response = await fetch(swept.url + url);
        await response.arrayBuffer();
        return response.status;
      };

      const shown = await agentUpload();
      const unshown = await agentUpload();
      await show(swept, token, shown);
      await age(shown, unshown);
      await waitFor(() => !onDisk(unshown), 15_000, 'the sweep of the upload nothing shows');
      expect(onDisk(shown)).toBe(true);
      expect(await served(shown)).toBe(200);

      const replacement = await agentUpload();
      await show(swept, token, replacement);
      await age(replacement);
      await waitFor(() => !onDisk(shown), 15_000, 'the sweep of the replaced picture');
      expect(await served(shown)).toBe(404);
      expect(onDisk(replacement)).toBe(true);
      expect(await served(replacement)).toBe(200);
    } finally {
      v.socket.close();
      await swept.close();
    }
  }

  it('keep the chat window logo saved in windowStyle, and sweep it once another image replaces it', async () => {
    await keptWhileShown(async (swept, token, url) => {
      const saved = await swept.post<{ logo: string }>('/api/settings/windowStyle', { logo: url }, { token });
      expect(saved.body.data.logo).toBe(url);
    });
  });

  it("keep a robot pair's image, and sweep it once the pair shows another one", async () => {
    let id: number | undefined;
    await keptWhileShown(async (swept, token, url) => {
      const saved = await swept.post<{ id: number }>(
        '/api/robot/ask/doEdit',
        { ...(id ? { id } : {}), questions: ['Where is the shop?'], answer: 'Here, on the map.', image: url },
        { token },
      );
      expect(saved.status).toBe(200);
      id = saved.body.data.id;
    });
  });

  it("keep an agent's avatar, and sweep it once the agent picks another one", async () => {
    await keptWhileShown(async (swept, token, url) => {
      const saved = await swept.post<{ avatar: string }>(
        '/api/personal',
        { nickname: 'Admin', avatar: url, notify: { newUser: true, newMsg: true, sound: true } },
        { token },
      );
      expect(saved.body.data.avatar).toBe(url);
    });
  });
});

describe('upload sweep: how far messages were read is shared', () => {
  /** A process's sweeper on the same database, counting the message windows it reads. */
  function anotherProcess(on: TestServer, dir: string) {
    const reads: [number, number][] = [];
    class CountingRepository extends UploadRepository {
      override messagesBetween(after: number, upTo: number, recentFrom: string) {
        reads.push([after, upTo]);
        return super.messagesBetween(after, upTo, recentFrom);
      }
    }
    const sweeper = new UploadSweeper(
      new CountingRepository(on.storage.db),
      dir,
      { intervalMs: 3600_000, graceMs: 3600_000 },
      pino({ level: 'silent' }),
    );
    return { sweeper, reads };
  }
  const marksUpTo = async (on: TestServer) =>
    Number((await on.storage.db.selectFrom('upload_marks').select('messages_up_to').executeTakeFirstOrThrow()).messages_up_to);

  it('a process that starts goes on from where the sweep got to, and still marks what newer messages name', async () => {
    const { swept, v, dir, send } = await sweptServer();
    try {
      const nameOf = (url: string) => url.split('/')[3] ?? '';
      const first = await send();
      for (let index = 0; index < 5; index += 1) await v.say(`hello ${index}`);
      await swept.post('/api/visitor/message', { YQToken: v.credential, msg: first.url, onlyID: onlyId(), type: 'image' });
      // Settled: messages younger than ten minutes hold the point back (they may commit out of order).
      await swept.storage.db
        .updateTable('messages')
        .set({ created_at: new Date(Date.now() - 3600_000).toISOString() })
        .execute();
      const newest = Number(
        (
          await swept.storage.db
            .selectFrom('messages')
            .select((eb) => eb.fn.max('id').as('id'))
            .executeTakeFirstOrThrow()
        ).id,
      );
      await waitFor(async () => (await marksUpTo(swept)) >= newest, 15_000, "the server's sweep to record how far it read");
      expect(
        (await swept.storage.db.selectFrom('uploads').select('referenced').where('name', '=', nameOf(first.url)).executeTakeFirstOrThrow())
          .referenced,
      ).toBe(1);

      // A process started now reads no message the point covers, and nothing at all when none is newer.
      const later = anotherProcess(swept, dir);
      await later.sweeper.markReferences();
      expect(later.reads).toEqual([]);

      // A newer image message is read from the point on, and its upload marked.
      const second = await send();
      await swept.post('/api/visitor/message', { YQToken: v.credential, msg: second.url, onlyID: onlyId(), type: 'image' });
      const point = await marksUpTo(swept);
      const next = anotherProcess(swept, dir);
      await next.sweeper.markReferences();
      expect(next.reads.length).toBeGreaterThan(0);
      expect(next.reads.every(([after]) => after >= point)).toBe(true);
      expect(
        (await swept.storage.db.selectFrom('uploads').select('referenced').where('name', '=', nameOf(second.url)).executeTakeFirstOrThrow())
          .referenced,
      ).toBe(1);
      // The point never moves back.
      await new UploadRepository(swept.storage.db).recordMarksUpTo(1);
      expect(await marksUpTo(swept)).toBeGreaterThanOrEqual(point);
    } finally {
      v.socket.close();
      await swept.close();
    }
  });
});
