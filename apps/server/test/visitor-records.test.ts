import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Message, VisitorDetail, VisitorRecord } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, onlyId, type TestVisitor, visitor } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';
import type { TestSocket } from './sockets.js';

let server: TestServer;
let admin: string;
/** An agent of the built-in Agent role: seeHistorical, but not seeVisitor. */
let agent: string;
let adminSocket: TestSocket;

beforeAll(async () => {
  server = await startTestServer({ SITE_TIMEZONE: 'Pacific/Honolulu' });
  admin = await server.login();
  agent = (await createAgent(server, admin, { username: 'records-agent' })).token ?? '';
  // The admin's console is open, so visitors who write are given to the admin.
  adminSocket = await agentSocket(server, admin);
});
afterAll(async () => {
  adminSocket.close();
  await server.close();
});

type List = { list: VisitorRecord[]; total: number };
const list = (query: string) => server.get<List>(`/api/user/getList?pageSize=100&${query}`, { token: admin });
const idsOf = (response: { body: { data: List } }) => response.body.data.list.map((item) => item.YQToken);
const db = () => server.storage.db;

async function visitorIdOf(publicId: string): Promise<number> {
  const row = await db().selectFrom('visitors').select('id').where('public_id', '=', publicId).executeTakeFirstOrThrow();
  return row.id;
}

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082',
  'hex',
);

async function upload(path: string, token?: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([PNG]), 'dot.png');
  const response = await fetch(server.url + path, {
    method: 'POST',
    body: form,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const body = (await response.json()) as { data: { url: string } };
  if (response.status !== 200) throw new Error(`upload failed: ${response.status}`);
  return body.data.url;
}

describe('access to /api/user/*', () => {
  const calls = (token: string | undefined) => [
    server.get('/api/user/getList', { token }),
    server.get(`/api/user/detail?YQToken=${'a'.repeat(22)}`, { token }),
    server.post('/api/user/doEdit', { YQToken: 'a'.repeat(22), remark: 'x' }, { token }),
    server.post('/api/user/doDelete', { ids: ['a'.repeat(22)] }, { token }),
  ];

  it('answers 401 without a token', async () => {
    for (const response of await Promise.all(calls(undefined))) expect(response.status).toBe(401);
  });

  it('answers 403 to an agent without seeVisitor', async () => {
    for (const response of await Promise.all(calls(agent))) {
      expect(response.status).toBe(403);
      expect(response.body.code).toBe(403);
    }
  });
});

describe('GET /api/user/getList', () => {
  it('lists visitors newest first with their counts, last message, region, device and source', async () => {
    const v = await visitor(server, 'https://shop.example/list', {
      referrer: 'https://news.example.org/article',
    });
    await server.post('/api/visitor/visit', { YQToken: v.credential, url: 'https://shop.example/second', title: 'Second' });
    const said = await v.say('list me');
    const later = await visitor(server, 'https://shop.example/later');

    const page = await list('');
    expect(page.status).toBe(200);
    const ids = idsOf(page);
    expect(ids.indexOf(later.id)).toBeLessThan(ids.indexOf(v.id));
    const record = page.body.data.list.find((item) => item.YQToken === v.id);
    expect(record).toMatchObject({
      channel: 'web',
      source: 'news.example.org',
      region: 'localhost',
      visits: 2,
      conversations: 1,
      name: '',
      remark: '',
      tags: [],
      lastMessage: said,
      firstUrl: 'https://shop.example/list',
    });
    expect(record?.device).toBeTypeOf('string');
    expect(record?.nickname).toMatch(/^V\d{4,}$/);
    expect(Date.parse(record?.lastSeen ?? '')).not.toBeNaN();
    for (const socket of [v.socket, later.socket]) socket.close();
  });

  it('filters by channel', async () => {
    const web = await visitor(server);
    const official = await visitor(server, 'https://shop.example/wx', { channel: 'officialAccount' });
    const mini = await visitor(server, 'https://shop.example/mp', { channel: 'miniProgram' });
    const officialList = await list('channel=officialAccount');
    expect(idsOf(officialList)).toContain(official.id);
    expect(officialList.body.data.list.every((item) => item.channel === 'officialAccount')).toBe(true);
    expect(idsOf(officialList)).not.toContain(web.id);
    expect(idsOf(await list('channel=miniProgram'))).toEqual([mini.id]);
    expect((await list('channel=fax')).status).toBe(400);
    for (const socket of [web.socket, official.socket, mini.socket]) socket.close();
  });

  it('finds visitors by a keyword in nickname, name, phone, email and remark, with LIKE wildcards taken literally', async () => {
    const v = await visitor(server);
    const other = await visitor(server);
    const edited = await server.post(
      '/api/user/doEdit',
      { YQToken: v.id, name: 'Ottoline Quill', phone: '+1 808 555 0199', email: 'ottoline@quill.example', remark: 'prefers e-mail, zebra' },
      { token: admin },
    );
    expect(edited.status).toBe(200);
    for (const keyword of ['ottoline', 'QUILL', '808 555', 'quill.example', 'zebra']) {
      const found = await list(`keyword=${encodeURIComponent(keyword)}`);
      expect(idsOf(found), keyword).toEqual([v.id]);
      expect(found.body.data.total).toBe(1);
    }
    const otherRecord = (await list('')).body.data.list.find((item) => item.YQToken === other.id);
    const byNickname = await list(`keyword=${otherRecord?.nickname}`);
    expect(idsOf(byNickname)).toEqual([other.id]);
    expect((await list('keyword=%25')).body.data.total).toBe(0);
    for (const socket of [v.socket, other.socket]) socket.close();
  });

  it('finds by a keyword within the other filters, and every visitor it finds without them', async () => {
    const web = await visitor(server);
    const official = await visitor(server, 'https://shop.example/wx', { channel: 'officialAccount' });
    for (const one of [web, official]) {
      const edited = await server.post('/api/user/doEdit', { YQToken: one.id, remark: 'wants the okapi plush' }, { token: admin });
      expect(edited.status).toBe(200);
    }
    const both = await list('keyword=okapi');
    expect(new Set(idsOf(both))).toEqual(new Set([web.id, official.id]));
    expect(both.body.data.total).toBe(2);
    const inChannel = await list('keyword=okapi&channel=officialAccount');
    expect(idsOf(inChannel)).toEqual([official.id]);
    expect(inChannel.body.data.total).toBe(1);
    // Days around today's in any zone: the site's (Honolulu) may be a day behind UTC's.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    expect((await list('keyword=okapi&from=2000-01-01&to=2000-01-02')).body.data.total).toBe(0);
    expect((await list(`keyword=okapi&from=${day(-1)}&to=${day(1)}`)).body.data.total).toBe(2);
    for (const socket of [web.socket, official.socket]) socket.close();
  });

  it('filters first-seen days in the site time zone (Pacific/Honolulu)', async () => {
    const late = await visitor(server);
    const early = await visitor(server);
    // 2026-05-01 23:30 in Honolulu is already 2026-05-02 in UTC; 00:30 on 2026-05-01 there is 10:30 UTC.
    await db().updateTable('visitors').set({ created_at: '2026-05-02T09:30:00.000Z' }).where('public_id', '=', late.id).execute();
    await db().updateTable('visitors').set({ created_at: '2026-05-01T10:30:00.000Z' }).where('public_id', '=', early.id).execute();
    expect(idsOf(await list('from=2026-05-01&to=2026-05-01'))).toEqual([late.id, early.id]);
    expect(idsOf(await list('from=2026-05-02&to=2026-05-02'))).toEqual([]);
    expect(idsOf(await list('to=2026-04-30'))).toEqual([]);
    expect(idsOf(await list('from=2026-05-01T12:00:00Z&to=2026-05-02T09:30:00Z'))).toEqual([late.id]);
    expect((await list('from=yesterday')).status).toBe(400);
    for (const socket of [late.socket, early.socket]) socket.close();
  });
});

describe('GET /api/user/detail', () => {
  it('answers the visitor, its page timeline and every conversation, and 404 for an unknown visitor', async () => {
    const v = await visitor(server, 'https://shop.example/start');
    await server.post('/api/visitor/visit', { YQToken: v.credential, url: 'https://shop.example/next', title: 'Next' });
    await v.say('first conversation');
    await server.post('/api/talk/end', { YQToken: v.id }, { token: admin });
    await v.say('second conversation');

    const detail = await server.get<VisitorDetail>(`/api/user/detail?YQToken=${v.id}`, { token: admin });
    expect(detail.status).toBe(200);
    expect(detail.body.data.visitor).toMatchObject({ YQToken: v.id, visits: 2, conversations: 2 });
    expect(detail.body.data.visits.map((visit) => visit.URL)).toEqual(['https://shop.example/next', 'https://shop.example/start']);
    const [newest, oldest] = detail.body.data.conversations;
    expect(detail.body.data.conversations).toHaveLength(2);
    expect(oldest).toMatchObject({ YQToken: v.id, agentNickname: 'admin', messages: 1 });
    expect(oldest?.endedAt).not.toBeNull();
    expect(newest).toMatchObject({ endedAt: null, messages: 1 });

    const unknown = await server.get(`/api/user/detail?YQToken=${'z'.repeat(22)}`, { token: admin });
    expect(unknown.status).toBe(404);
    v.socket.close();
  });
});

describe('POST /api/user/doEdit', () => {
  it('saves name, phone, email, remark and tags, leaves out what is not sent, and validates each field', async () => {
    const v = await visitor(server);
    const saved = await server.post<VisitorRecord>(
      '/api/user/doEdit',
      { YQToken: v.id, name: 'Mina', phone: '555-0100', email: 'mina@example.com', remark: 'VIP\nsecond line', tags: ['vip', '回头客'] },
      { token: admin },
    );
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({
      YQToken: v.id,
      nickname: 'Mina',
      name: 'Mina',
      phone: '555-0100',
      email: 'mina@example.com',
      remark: 'VIP\nsecond line',
      tags: ['vip', '回头客'],
    });
    const partial = await server.post<VisitorRecord>('/api/user/doEdit', { YQToken: v.id, tags: [] }, { token: admin });
    expect(partial.body.data).toMatchObject({ name: 'Mina', remark: 'VIP\nsecond line', tags: [] });
    const renamed = await server.post<VisitorRecord>('/api/user/doEdit', { YQToken: v.id, nickname: 'Mina K.' }, { token: admin });
    expect(renamed.body.data.nickname).toBe('Mina K.');
    const detail = await server.get<VisitorDetail>(`/api/user/detail?YQToken=${v.id}`, { token: admin });
    expect(detail.body.data.visitor).toMatchObject({ name: 'Mina K.', email: 'mina@example.com', tags: [] });

    const badEmail = await server.post('/api/user/doEdit', { YQToken: v.id, email: 'not-an-email' }, { token: admin });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.msg).toContain('email');
    const tooMany = await server.post(
      '/api/user/doEdit',
      { YQToken: v.id, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
      { token: admin },
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.msg).toContain('tags');
    const unknown = await server.post('/api/user/doEdit', { YQToken: 'q'.repeat(22), remark: 'x' }, { token: admin });
    expect(unknown.status).toBe(404);
    v.socket.close();
  });
});

describe('POST /api/user/doDelete', () => {
  async function fullVisitor(): Promise<{ v: TestVisitor; files: string[] }> {
    const v = await visitor(server);
    await server.post('/api/visitor/visit', { YQToken: v.credential, url: 'https://shop.example/more', title: 'More' });
    await v.say('my address is 1 Secret Lane');
    const visitorFile = await upload(`/api/visitor/upload?YQToken=${v.credential}`);
    const sent = await server.post<Message>('/api/visitor/message', {
      YQToken: v.credential,
      msg: visitorFile,
      onlyID: onlyId(),
      type: 'image',
    });
    expect(sent.status).toBe(200);
    const agentFile = await upload('/api/talk/upload', admin);
    const reply = await server.post('/api/talk/send', { YQToken: v.id, msg: agentFile, onlyID: onlyId(), type: 'image' }, { token: admin });
    expect(reply.status).toBe(200);
    await server.post('/api/talk/end', { YQToken: v.id }, { token: admin });
    expect((await server.post('/api/visitor/rate', { YQToken: v.credential, score: 4, comment: 'ok' })).status).toBe(200);
    // A second conversation, still open and watched by a supervisor.
    await v.say('one more question');
    expect((await server.post('/api/talk/monitor', { YQToken: v.id }, { token: admin })).status).toBe(200);
    const letter = await server.post('/api/visitor/letter', { YQToken: v.credential, name: 'Secret', content: 'call me back' });
    expect(letter.status).toBe(200);
    await server.post('/api/user/doEdit', { YQToken: v.id, remark: 'private note', tags: ['x'] }, { token: admin });
    const files = [visitorFile, agentFile].map((url) => url.split('/')[3] ?? '');
    return { v, files };
  }

  async function rowsAbout(id: number, files: string[]) {
    const count = async (table: 'messages' | 'visits' | 'conversations' | 'monitors' | 'letters' | 'visitor_notes') => {
      const column = table === 'visitor_notes' ? 'visitor_notes.visitor_id' : `${table}.visitor_id`;
      const row = await db()
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(column as 'messages.visitor_id', '=', id)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    return {
      visitors: (await db().selectFrom('visitors').select('id').where('id', '=', id).execute()).length,
      messages: await count('messages'),
      visits: await count('visits'),
      conversations: await count('conversations'),
      monitors: await count('monitors'),
      letters: await count('letters'),
      notes: await count('visitor_notes'),
      uploads: (
        await db()
          .selectFrom('uploads')
          .select('id')
          .where((eb) => eb.or([eb('visitor_id', '=', id), eb('name', 'in', files)]))
          .execute()
      ).length,
      files: files.filter((name) => existsSync(join(server.config.dataDir, 'uploads', name))).length,
    };
  }

  it('erases the visitor with every row and file about it, and closes its sockets', async () => {
    const { v, files } = await fullVisitor();
    const keep = await fullVisitor();
    const id = await visitorIdOf(v.id);
    const before = await rowsAbout(id, files);
    expect(before).toEqual({
      visitors: 1,
      messages: expect.any(Number),
      visits: 2,
      conversations: 2,
      monitors: 1,
      letters: 1,
      notes: 1,
      uploads: 2,
      files: 2,
    });
    expect(before.messages).toBeGreaterThanOrEqual(3);

    const erased = await server.post('/api/user/doDelete', { ids: [v.id] }, { token: admin });
    expect(erased.status).toBe(200);
    expect(erased.body.data).toBeNull();
    expect(await rowsAbout(id, files)).toEqual({
      visitors: 0,
      messages: 0,
      visits: 0,
      conversations: 0,
      monitors: 0,
      letters: 0,
      notes: 0,
      uploads: 0,
      files: 0,
    });
    expect(await v.socket.closed()).toBe(4401);
    expect((await server.get(`/api/visitor/messages?YQToken=${v.credential}`)).status).toBe(401);
    expect((await server.get(`/api/user/detail?YQToken=${v.id}`, { token: admin })).status).toBe(404);
    const history = await server.get<{ list: { YQToken: string }[] }>('/api/history/getList?keyword=Secret%20Lane', { token: admin });
    expect(history.body.data.list.map((item) => item.YQToken)).not.toContain(v.id);
    const offline = await adminSocket.until(() =>
      adminSocket.frames.find((frame) => {
        const { code, data } = frame as { code: string; data?: { YQToken?: string } };
        return code === '8003' && data?.YQToken === v.id;
      }),
    );
    expect(offline).toBeTruthy();

    // Another visitor's record is untouched.
    const other = await rowsAbout(await visitorIdOf(keep.v.id), keep.files);
    expect(other).toMatchObject({ visitors: 1, visits: 2, conversations: 2, monitors: 1, letters: 1, notes: 1, uploads: 2, files: 2 });
    // Erasing again, or an id never known, is a no-op.
    expect((await server.post('/api/user/doDelete', { ids: [v.id] }, { token: admin })).status).toBe(200);
    expect((await server.post('/api/user/doDelete', { ids: [] }, { token: admin })).status).toBe(400);
    keep.v.socket.close();
  });
});
