import type { AgentPeer, ChatLink, Conversation, VisitorRecord } from '@parley/protocol';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, uuidOf, visitor } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;
/** An agent whose role holds every permission but `seePermissions:link`. */
let outsider: string;
/** An agent whose role holds `seePermissions:link` only. */
let linker: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  // The administrator takes no conversations here: routing is between the agents each test connects.
  await server.post('/api/index/state', { state: '1' }, { token: admin });
  await server.post('/api/role/doEdit', { name: 'No links', permissions: ['setPermissions:friendly'] }, { token: admin });
  await server.post('/api/role/doEdit', { name: 'Links', permissions: ['seePermissions:link'] }, { token: admin });
  outsider = (await createAgent(server, admin, { username: 'outsider', role: 'No links' })).token ?? '';
  linker = (await createAgent(server, admin, { username: 'linker', role: 'Links' })).token ?? '';
  await server.post('/api/index/state', { state: '1' }, { token: linker });
});
afterAll(() => server.close());

const list = (query = '', token = linker) => server.get<{ list: ChatLink[]; total: number }>(`/api/link/getList${query}`, { token });
const save = (body: Record<string, unknown>, token = linker) => server.post<{ id: number }>('/api/link/doEdit', body, { token });
async function row(id: number): Promise<ChatLink | undefined> {
  return (await list('?pageSize=100')).body.data.list.find((link) => link.id === id);
}

describe('permissions of /api/link', () => {
  const calls = [
    (token?: string) => server.get('/api/link/getList', { token }),
    (token?: string) => server.post('/api/link/doEdit', { name: 'x' }, { token }),
    (token?: string) => server.post('/api/link/doDelete', { ids: [1] }, { token }),
    (token?: string) => server.get('/api/link/qrcode?id=1', { token }),
  ];
  it.each(calls.map((call, index) => [['getList', 'doEdit', 'doDelete', 'qrcode'][index], call] as const))(
    '%s answers 401 without a token and 403 without seePermissions:link',
    async (_name, call) => {
      expect((await call()).status).toBe(401);
      const refused = await call(outsider);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 403, msg: 'You do not have permission to do this' });
    },
  );
});

describe('POST /api/link/doEdit and GET /api/link/getList', () => {
  it('creates a link with a generated key, lists it with its chat URL and zero counts, and keeps the key on update', async () => {
    const created = await save({ name: 'Spring fair', remark: 'Booth 12' });
    expect(created.status).toBe(200);
    const id = created.body.data.id;
    const link = await row(id);
    expect(link).toEqual({
      id,
      name: 'Spring fair',
      key: expect.stringMatching(/^[A-Za-z0-9_-]{8}$/),
      serviceID: null,
      remark: 'Booth 12',
      url: `${server.url}/chat?link=${link?.key}`,
      visitors: 0,
      conversations: 0,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    const other = await save({ name: 'Second' });
    expect((await row(other.body.data.id))?.key).not.toBe(link?.key);

    const renamed = await save({ id, name: 'Spring fair 2026' });
    expect(renamed.body.data).toEqual({ id });
    expect(await row(id)).toMatchObject({ name: 'Spring fair 2026', key: link?.key, remark: '' });
    const rekeyed = await save({ id, name: 'Spring fair 2026', key: 'spring-2026' });
    expect(rekeyed.status).toBe(200);
    expect(await row(id)).toMatchObject({ key: 'spring-2026', url: `${server.url}/chat?link=spring-2026` });
  });

  it('finds links by a keyword over name, key and remark, newest first', async () => {
    const a = (await save({ name: 'Newsletter May', key: 'nl-may' })).body.data.id;
    const b = (await save({ name: '微信公众号菜单', key: 'wx_menu', remark: 'bottom menu' })).body.data.id;
    const names = async (keyword: string) => (await list(`?keyword=${encodeURIComponent(keyword)}`)).body.data.list.map((link) => link.id);
    expect(await names('newsletter')).toEqual([a]);
    expect(await names('WX_MENU')).toEqual([b]);
    expect(await names('公众号')).toEqual([b]);
    expect(await names('BOTTOM')).toEqual([b]);
    expect(await names('%')).toEqual([]);
    const all = await list();
    expect(all.body.data.list[0]?.id).toBe(b);
    const page = await list('?pageNo=2&pageSize=1');
    expect(page.body.data.list).toHaveLength(1);
    expect(page.body.data.total).toBe(all.body.data.total);
  });

  it('answers 409 when the key belongs to another link, 400 for a malformed key or an unknown agent, 404 for an unknown id', async () => {
    const holder = (await save({ name: 'Holder', key: 'taken-key' })).body.data.id;
    const clash = await save({ name: 'Clash', key: 'taken-key' });
    expect(clash.status).toBe(409);
    expect(clash.body.msg).toBe('This link key is already used by another link');
    const other = (await save({ name: 'Other' })).body.data.id;
    expect((await save({ id: other, name: 'Other', key: 'taken-key' })).status).toBe(409);
    expect((await save({ id: holder, name: 'Holder again', key: 'taken-key' })).status).toBe(200);

    const malformed = await save({ name: 'Bad', key: 'has space' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.msg).toContain('key');
    expect((await save({ name: 'Short', key: 'ab' })).status).toBe(400);
    const ghost = await save({ name: 'Ghost agent', serviceID: '00000000-0000-4000-8000-000000000000' });
    expect(ghost.status).toBe(400);
    expect(ghost.body.msg).toContain('serviceID');
    expect((await save({ id: 999_999, name: 'Missing' })).status).toBe(404);
  });
});

describe('GET /api/link/qrcode', () => {
  it('answers the chat URL and a PNG data URL whose QR code reads back as that URL', async () => {
    const id = (await save({ name: 'Poster', key: 'poster-a1' })).body.data.id;
    const response = await server.get<{ url: string; qrCode: string }>(`/api/link/qrcode?id=${id}`, { token: linker });
    expect(response.status).toBe(200);
    const { url, qrCode } = response.body.data;
    expect(url).toBe(`${server.url}/chat?link=poster-a1`);
    expect(qrCode.startsWith('data:image/png;base64,')).toBe(true);
    const png = PNG.sync.read(Buffer.from(qrCode.slice('data:image/png;base64,'.length), 'base64'));
    const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    expect(decoded?.data).toBe(url);
  });

  it('answers 404 for an unknown link and 400 for a bad id', async () => {
    const missing = await server.get('/api/link/qrcode?id=999999', { token: linker });
    expect(missing.status).toBe(404);
    expect(missing.body.msg).toBe('No such link');
    expect((await server.get('/api/link/qrcode?id=abc', { token: linker })).status).toBe(400);
  });
});

describe('visitors arriving through a link', () => {
  it('are counted on the link, and their conversations go to the pinned agent while connected', async () => {
    // `first` is older and as idle as `pinned`: without the link, it would be chosen.
    const first = (await createAgent(server, admin, { username: 'first-agent' })).token ?? '';
    const pinned = (await createAgent(server, admin, { username: 'pinned-agent' })).token ?? '';
    const pinnedUuid = await uuidOf(server, pinned);
    const firstUuid = await uuidOf(server, first);
    const id = (await save({ name: 'Pinned', key: 'pinned-link', serviceID: pinnedUuid })).body.data.id;
    expect(await row(id)).toMatchObject({ serviceID: pinnedUuid, visitors: 0, conversations: 0 });
    const sockets = [await agentSocket(server, first), await agentSocket(server, pinned)];

    const linked = await visitor(server, 'https://shop.example/', { link: 'pinned-link' });
    expect(await row(id)).toMatchObject({ visitors: 1, conversations: 0 });
    const message = await linked.say('hello from the poster');
    expect(message.serviceID).toBe(pinnedUuid);
    expect((await linked.socket.frame('2000')).data).toMatchObject({ serviceID: pinnedUuid, nickname: 'pinned-agent' });
    expect(await row(id)).toMatchObject({ visitors: 1, conversations: 1 });
    // The link names where the visitor came from, in the visitor archive and in the history.
    const archived = await server.get<{ list: VisitorRecord[] }>('/api/user/getList?keyword=', { token: admin });
    expect(archived.body.data.list.find((record) => record.YQToken === linked.id)?.source).toBe('Pinned');
    const history = await server.get<{ list: Conversation[] }>('/api/history/getList', { token: admin });
    expect(history.body.data.list.find((conversation) => conversation.YQToken === linked.id)?.source).toBe('Pinned');

    const plain = await visitor(server, 'https://shop.example/');
    expect((await plain.say('hello from nowhere')).serviceID).toBe(firstUuid);
    expect(await row(id)).toMatchObject({ visitors: 1 });

    // With its agent gone, a link's visitor is routed like any other.
    sockets[1]?.close();
    await expect
      .poll(async () => {
        const peers = await server.get<{ list: AgentPeer[] }>('/api/talk/agents', { token: first });
        return peers.body.data.list.find((peer) => peer.uuid === pinnedUuid)?.online;
      })
      .toBe(false);
    const later = await visitor(server, 'https://shop.example/', { link: 'pinned-link' });
    expect((await later.say('anyone there?')).serviceID).toBe(firstUuid);
    expect(await row(id)).toMatchObject({ visitors: 2, conversations: 2 });
    for (const socket of [sockets[0], linked.socket, plain.socket, later.socket]) socket?.close();
  });

  it('ignores an unknown key, and refuses a malformed one naming the field', async () => {
    const before = (await list('?pageSize=100')).body.data.list.reduce((sum, link) => sum + link.visitors, 0);
    const unknown = await server.post<{ id: string }>('/api/visitor/init', { url: 'https://shop.example/', link: 'no-such-link' });
    expect(unknown.status).toBe(200);
    expect(unknown.body.data.id).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    const after = (await list('?pageSize=100')).body.data.list.reduce((sum, link) => sum + link.visitors, 0);
    expect(after).toBe(before);
    const malformed = await server.post('/api/visitor/init', { url: 'https://shop.example/', link: '<script>' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.msg).toContain('link');
  });
});

describe('POST /api/link/doDelete', () => {
  it('deletes the links; their visitors keep their conversations, no longer tagged', async () => {
    const id = (await save({ name: 'Short-lived', key: 'short-lived' })).body.data.id;
    const kept = (await save({ name: 'Kept', key: 'kept-link' })).body.data.id;
    const v = await visitor(server, 'https://shop.example/', { link: 'short-lived' });
    await v.say('remember me');
    expect(await row(id)).toMatchObject({ visitors: 1 });

    const deleted = await server.post('/api/link/doDelete', { ids: [id] }, { token: linker });
    expect(deleted.status).toBe(200);
    expect(await row(id)).toBeUndefined();
    expect(await row(kept)).toBeDefined();
    const history = await server.get<{ list: { msg: string }[] }>(`/api/talk/messages?YQToken=${v.id}`, { token: admin });
    expect(history.body.data.list.map((message) => message.msg)).toContain('remember me');
    const tagged = await server.storage.db.selectFrom('visitors').select('link_id').where('public_id', '=', v.id).executeTakeFirst();
    expect(tagged).toEqual({ link_id: null });
    // The key is free again, and a new link under it starts from zero.
    const again = (await save({ name: 'Reborn', key: 'short-lived' })).body.data.id;
    expect(await row(again)).toMatchObject({ visitors: 0, conversations: 0 });
    v.socket.close();
  });
});

describe('PUBLIC_URL', () => {
  it('is the base of the links’ chat URLs when set', async () => {
    const behindProxy = await startTestServer({ PUBLIC_URL: 'https://chat.example.com/' });
    try {
      const token = await behindProxy.login();
      const id = (await behindProxy.post<{ id: number }>('/api/link/doEdit', { name: 'Proxied', key: 'proxied' }, { token })).body.data.id;
      const listed = await behindProxy.get<{ list: ChatLink[] }>('/api/link/getList', { token });
      expect(listed.body.data.list[0]?.url).toBe('https://chat.example.com/chat?link=proxied');
      const qr = await behindProxy.get<{ url: string }>(`/api/link/qrcode?id=${id}`, { token });
      expect(qr.body.data.url).toBe('https://chat.example.com/chat?link=proxied');
    } finally {
      await behindProxy.close();
    }
  });
});
