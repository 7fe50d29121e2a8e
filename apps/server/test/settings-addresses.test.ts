import type { WidgetSettings } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

/** Saves one value into a page (the rest at its stored values) and answers the status and message. */
async function saveWith(page: string, path: string, value: string): Promise<{ status: number; msg: string }> {
  const current = await server.get<Record<string, unknown>>(`/api/settings/${page}`, { token: admin });
  const body: Record<string, unknown> = structuredClone(current.body.data);
  const keys = path.split('.');
  let node = body;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys.at(-1) ?? ''] = value;
  const saved = await server.post(`/api/settings/${page}`, body, { token: admin });
  return { status: saved.status, msg: saved.body.msg };
}

/** Every field of the registry that the widget or the console shows as an image, plays, or follows as a link. */
const ADDRESS_FIELDS: [page: string, path: string][] = [
  ['takeIcon', 'pc.image'],
  ['takeIcon', 'mobile.image'],
  ['windowStyle', 'logo'],
  ['windowStyle', 'agentAvatar'],
  ['windowStyle', 'ad.image'],
  ['windowStyle', 'ad.url'],
  ['softwareSetting', 'logo'],
  ['invitationBox', 'pc.image'],
  ['invitationBox', 'mobile.image'],
  ['desktopSetting', 'newUserSound'],
  ['desktopSetting', 'newMsgSound'],
];

/** Addresses that look like this site's paths but that a browser reads as another host, or that are no web address. */
const OTHER_HOSTS = [
  '/\\evil.example/x.png',
  '/\\\\evil.example/x.png',
  '//evil.example/x.png',
  '\\\\evil.example/x.png',
  '/\t/evil.example',
  '/ /evil.example',
  'https:/\\evil.example/x.png',
  'https://good.example\\@evil.example/x.png',
  'https://good.example@evil.example/x.png',
  'https://',
  'javascript:alert(1)',
  'data:image/png;base64,iVBORw0KGgo=',
];

describe('settings addresses (POST /api/settings/<page>)', () => {
  it('answer 401 without a token and 403 to a non-Admin', async () => {
    expect((await server.post('/api/settings/windowStyle', { logo: '/\\evil.example/x.png' })).status).toBe(401);
    const agent = (await createAgent(server, admin, { username: 'addresses-agent' })).token;
    expect((await server.post('/api/settings/windowStyle', { logo: '/\\evil.example/x.png' }, { token: agent })).status).toBe(403);
  });

  it.each(ADDRESS_FIELDS)('%s.%s refuses an address a browser reads as another host, naming the field', async (page, path) => {
    for (const value of OTHER_HOSTS) {
      const saved = await saveWith(page, path, value);
      expect(saved.status, value).toBe(400);
      expect(saved.msg, value).toContain(path);
    }
  });

  it.each(ADDRESS_FIELDS)('%s.%s keeps web addresses, this site’s paths and empty', async (page, path) => {
    for (const value of [
      'https://cdn.example/a.png',
      'http://cdn.example/a.png?v=2#top',
      '/api/files/abc.png',
      '/sounds/visitor.wav',
      '',
    ]) {
      expect((await saveWith(page, path, value)).status, value).toBe(200);
    }
  });

  it('a float navigation link takes only absolute web addresses', async () => {
    for (const value of ['/\\evil.example/', '//evil.example/', '/help', 'https://good.example\\@evil.example/', 'https://']) {
      const saved = await server.post(
        '/api/settings/floatNavigation',
        { enabled: true, items: [{ type: 'link', title: 'Help', value }] },
        { token: admin },
      );
      expect(saved.status, value).toBe(400);
      expect(saved.body.msg).toContain('items.0.value');
    }
  });
});

describe('a float navigation WeChat item', () => {
  const saveWeChat = (value: string) =>
    server.post('/api/settings/floatNavigation', { enabled: true, items: [{ type: 'wechat', title: 'WeChat', value }] }, { token: admin });

  it('holds a WeChat ID or the address of its QR code image, nothing else', async () => {
    for (const value of [
      '',
      'javascript:alert(1)',
      '"><img src=x onerror=alert(1)>',
      '<svg onload=alert(1)>',
      'data:image/png;base64,iVBORw0KGgo=',
      '/\\evil.example/qr.png',
      '//evil.example/qr.png',
      '12345',
      'ab',
      'a'.repeat(21),
      'shop service',
    ]) {
      const saved = await saveWeChat(value);
      expect(saved.status, value).toBe(400);
      expect(saved.body.msg, value).toContain('items.0.value');
    }
    for (const value of ['shop_service', 'Parley-Help1', '/api/files/qr.png', 'https://cdn.example/qr.png']) {
      expect((await saveWeChat(value)).status, value).toBe(200);
    }
  });

  it('reaches the widget as it was saved', async () => {
    expect((await saveWeChat('shop_service')).status).toBe(200);
    const init = await server.post<{ settings: WidgetSettings }>('/api/visitor/init', { url: 'https://shop.example/' });
    expect(init.body.data.settings.floatNavigation.items).toEqual([{ type: 'wechat', title: 'WeChat', value: 'shop_service' }]);
  });
});
