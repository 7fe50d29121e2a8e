import type { Friendly } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;
/** An agent whose role holds every permission but `setPermissions:friendly`. */
let outsider: string;
/** An agent whose role holds `setPermissions:friendly` only. */
let keeper: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  await server.post('/api/role/doEdit', { name: 'No contacts', permissions: ['seePermissions:link'] }, { token: admin });
  await server.post('/api/role/doEdit', { name: 'Contacts', permissions: ['setPermissions:friendly'] }, { token: admin });
  outsider = (await createAgent(server, admin, { username: 'outsider', role: 'No contacts' })).token ?? '';
  keeper = (await createAgent(server, admin, { username: 'keeper', role: 'Contacts' })).token ?? '';
});
afterAll(() => server.close());

const list = (query = '', token = keeper) => server.get<{ list: Friendly[]; total: number }>(`/api/friendly/getList${query}`, { token });
const save = (body: Record<string, unknown>, token = keeper) => server.post<{ id: number }>('/api/friendly/doEdit', body, { token });

describe('GET /api/friendly/getList', () => {
  it('answers 401 without a token and 403 without setPermissions:friendly', async () => {
    expect((await server.get('/api/friendly/getList')).status).toBe(401);
    const refused = await list('', outsider);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 403, msg: 'You do not have permission to do this' });
  });

  it('finds contacts by a keyword over name, company, phone, email, WeChat and remark, newest first', async () => {
    const ids: number[] = [];
    for (const contact of [
      { name: 'Ada Lovelace', company: 'Analytical Engines', phone: '+44 20 7946 0000' },
      { name: '王小明', company: '星河物流', email: 'xm@xinghe.example' },
      { name: 'Grace', wechat: 'grace_hopper', remark: 'Cobol partner; call after 10:00' },
    ]) {
      const created = await save(contact);
      expect(created.status).toBe(200);
      ids.push(created.body.data.id);
    }
    const all = await list();
    expect(all.status).toBe(200);
    expect(all.body.data.total).toBeGreaterThanOrEqual(3);
    expect(all.body.data.list[0]).toEqual({
      id: ids[2],
      name: 'Grace',
      company: '',
      phone: '',
      email: '',
      wechat: 'grace_hopper',
      remark: 'Cobol partner; call after 10:00',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    const names = async (keyword: string) => (await list(`?keyword=${encodeURIComponent(keyword)}`)).body.data.list.map((c) => c.name);
    expect(await names('ENGINES')).toEqual(['Ada Lovelace']);
    expect(await names('7946')).toEqual(['Ada Lovelace']);
    expect(await names('xinghe')).toEqual(['王小明']);
    expect(await names('星河')).toEqual(['王小明']);
    expect(await names('hopper')).toEqual(['Grace']);
    expect(await names('cobol')).toEqual(['Grace']);
    expect(await names('%')).toEqual([]);

    const page = await list('?pageNo=2&pageSize=1');
    expect(page.body.data.list).toHaveLength(1);
    expect(page.body.data.total).toBe(all.body.data.total);
  });
});

describe('POST /api/friendly/doEdit', () => {
  it('answers 401 without a token and 403 without setPermissions:friendly', async () => {
    expect((await server.post('/api/friendly/doEdit', { name: 'x' })).status).toBe(401);
    expect((await save({ name: 'x' }, outsider)).status).toBe(403);
  });

  it('creates a contact and replaces it on update', async () => {
    const created = await save({ name: 'Linus', company: 'Kernel', email: 'linus@kernel.example', remark: 'line one\nline two' });
    expect(created.status).toBe(200);
    const id = created.body.data.id;
    const updated = await save({ id, name: 'Linus T.', phone: '(555) 010-0000' });
    expect(updated.body.data).toEqual({ id });
    const found = (await list('?keyword=Linus')).body.data.list;
    expect(found).toEqual([expect.objectContaining({ id, name: 'Linus T.', company: '', email: '', phone: '(555) 010-0000', remark: '' })]);
  });

  it('answers 400 naming the field for a missing name or a bad email, 404 for an unknown id', async () => {
    const noName = await save({ name: '  ' });
    expect(noName.status).toBe(400);
    expect(noName.body.msg).toContain('name');
    const badEmail = await save({ name: 'Mail', email: 'not-an-address' });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.msg).toContain('email');
    const missing = await save({ id: 999_999, name: 'Ghost' });
    expect(missing.status).toBe(404);
    expect(missing.body.msg).toBe('No such contact');
  });
});

describe('POST /api/friendly/doDelete', () => {
  it('answers 401 without a token and 403 without setPermissions:friendly', async () => {
    expect((await server.post('/api/friendly/doDelete', { ids: [1] })).status).toBe(401);
    expect((await server.post('/api/friendly/doDelete', { ids: [1] }, { token: outsider })).status).toBe(403);
  });

  it('deletes the contacts named and only them', async () => {
    const first = (await save({ name: 'Delete me 1' })).body.data.id;
    const second = (await save({ name: 'Delete me 2' })).body.data.id;
    const kept = (await save({ name: 'Keep me' })).body.data.id;
    const deleted = await server.post('/api/friendly/doDelete', { ids: [first, second] }, { token: keeper });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toBeNull();
    expect((await list('?keyword=Delete me')).body.data.total).toBe(0);
    expect((await list('?keyword=Keep me')).body.data.list.map((c) => c.id)).toEqual([kept]);
  });
});
