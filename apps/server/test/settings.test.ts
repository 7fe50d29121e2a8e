import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  SECRET_FIELDS,
  SETTINGS_PAGES,
  type SettingsAnswer,
  type SettingsPage,
  secretFlag,
  settingsDefaults,
  type WidgetSettings,
} from '@parley/protocol';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadSealer } from '../src/lib/sealed.js';
import { RedisBus } from '../src/realtime/bus.js';
import { agentSocket, onlyId, visitor } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';
import { smtpListener } from './smtp.js';
import { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';

let server: TestServer;
let admin: string;
/** An agent without the Admin role: reads the two shared pages, nothing else. */
let agent: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
  agent = (await createAgent(server, admin, { username: 'plain-agent' })).token ?? '';
});
afterAll(() => server.close());

const SHARED: SettingsPage[] = ['quickReply', 'desktopSetting'];

/** For each page: a valid change and what must come back, and one invalid value with the field it names. */
const CASES: Record<SettingsPage, { change: Record<string, unknown>; invalid: Record<string, unknown>; field: string }> = {
  takeIcon: {
    change: { pc: { style: 'bar', text: '聊一聊', color: '#ff0000' } },
    invalid: { mobile: { bottom: -1 } },
    field: 'mobile.bottom',
  },
  floatNavigation: {
    change: { enabled: true, items: [{ type: 'phone', title: 'Call', value: '+86 10 1234 5678' }] },
    invalid: { items: [{ type: 'link', title: 'Site', value: 'javascript:alert(1)' }] },
    field: 'items.0.value',
  },
  region: {
    change: { rules: [{ codes: ['110000'], action: 'block', text: 'no' }] },
    invalid: { rules: [{ codes: [], action: 'tip' }] },
    field: 'rules.0.codes',
  },
  windowStyle: { change: { title: 'Help desk', width: 420 }, invalid: { color: 'blue' }, field: 'color' },
  windowSetting: { change: { welcome: 'Hi there', autoCloseMinutes: 5 }, invalid: { maxLength: 0 }, field: 'maxLength' },
  quickReply: {
    change: { groups: [{ name: 'Greetings', items: [{ title: 'Hello', content: 'Hello, how can I help?' }] }] },
    invalid: { groups: [{ name: '', items: [] }] },
    field: 'groups.0.name',
  },
  softwareSetting: { change: { siteName: 'Acme Support', uploadMaxMB: 5 }, invalid: { timezone: 'Mars/Olympus' }, field: 'timezone' },
  invitationBox: { change: { pc: { enabled: true, text: 'Need help?' } }, invalid: { pc: { maxTimes: 1000 } }, field: 'pc.maxTimes' },
  weChatSetting: {
    change: { officialAccount: { appId: 'wx123' } },
    invalid: { miniProgram: { appId: 'a\nb' } },
    field: 'miniProgram.appId',
  },
  autoAnswer: {
    change: { greeting: 'Welcome!', idle: { minutes: 3, text: 'Still there?' } },
    invalid: { idle: { minutes: -5 } },
    field: 'idle.minutes',
  },
  desktopSetting: { change: { titleBlink: false }, invalid: { notifyNewMsg: 'yes' }, field: 'notifyNewMsg' },
  appSetting: { change: { transcriptEmail: true }, invalid: { allowedOrigins: ['not a site'] }, field: 'allowedOrigins.0' },
};

/** A page's defaults as answered: beside each secret the defaults hold (all empty), its flag, false. */
function answeredDefaults(page: SettingsPage): unknown {
  const copy: Record<string, unknown> = structuredClone(settingsDefaults[page]);
  for (const path of SECRET_FIELDS[page]) {
    const keys = path.split('.');
    const key = keys.pop() ?? '';
    let holder: unknown = copy;
    for (const step of keys) holder = typeof holder === 'object' && holder !== null ? (holder as Record<string, unknown>)[step] : undefined;
    if (typeof holder === 'object' && holder !== null) (holder as Record<string, unknown>)[secretFlag(key)] = false;
  }
  // The WeChat page also answers each channel's push URL and status, read-only (§11).
  if (page === 'weChatSetting') {
    for (const channel of ['officialAccount', 'miniProgram']) {
      Object.assign(copy[channel] as object, {
        serverUrl: expect.stringMatching(new RegExp(`/wechat/${channel}$`)),
        status: { lastReceivedAt: null, lastError: null, lastErrorCode: null, lastErrorDetail: '' },
      });
    }
  }
  return copy;
}

describe.each(SETTINGS_PAGES)('/api/settings/%s', (page) => {
  const path = `/api/settings/${page}`;
  const { change, invalid, field } = CASES[page];

  it('answers 401 without a token and 403 to a non-Admin', async () => {
    expect((await server.get(path)).status).toBe(401);
    expect((await server.post(path, {})).status).toBe(401);
    expect((await server.post(path, {}, { token: agent })).status).toBe(403);
    const read = await server.get(path, { token: agent });
    expect(read.status).toBe(SHARED.includes(page) ? 200 : 403);
  });

  it('answers the defaults, stores a page and answers it back, and names the field of an invalid value', async () => {
    const before = await server.get(path, { token: admin });
    expect(before.status).toBe(200);
    expect(before.body.data).toEqual(answeredDefaults(page));

    const saved = await server.post(path, change, { token: admin });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject(change);
    expect((await server.get(path, { token: admin })).body.data).toEqual(saved.body.data);

    const refused = await server.post(path, invalid, { token: admin });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toContain(field);
    expect((await server.get(path, { token: admin })).body.data).toEqual(saved.body.data);
  });
});

describe('secrets', () => {
  it('are never answered and are kept when a save leaves them empty', async () => {
    const smtp = {
      host: 'smtp.example.com',
      port: 465,
      secure: true,
      user: 'bot',
      password: 's3cret!',
      from: 'bot@example.com',
      to: ['ops@example.com'],
    };
    const saved = await server.post<{ smtp: typeof smtp }>('/api/settings/softwareSetting', { smtp }, { token: admin });
    expect(saved.status).toBe(200);
    expect(saved.body.data.smtp).toEqual({ ...smtp, password: '', hasPassword: true });
    // The form posts back what it was given: the password stays.
    await server.post('/api/settings/softwareSetting', { smtp: { ...smtp, password: '' } }, { token: admin });
    const [row] = await server.storage.db.selectFrom('settings').select('value').where('page', '=', 'softwareSetting').execute();
    // Kept, and sealed at rest: the table holds no clear secret, the server's key opens it.
    expect(row?.value).not.toContain('s3cret!');
    const sealer = loadSealer(server.config.dataDir, server.config.secretKey);
    expect(sealer.open(JSON.parse(row?.value ?? '{}').smtp.password, 'settings:softwareSetting:smtp.password')).toBe('s3cret!');
    expect(JSON.stringify((await server.get('/api/settings/softwareSetting', { token: admin })).body)).not.toContain('s3cret!');

    const wechat = { appId: 'wx1', appSecret: 'app-secret-1', token: 'tok-1', aesKey: 'aes-1' };
    const first = await server.post('/api/settings/weChatSetting', { officialAccount: wechat }, { token: admin });
    expect(first.body.data).toMatchObject({ officialAccount: { appId: 'wx1', appSecret: '', token: '', aesKey: '' } });
    await server.post('/api/settings/weChatSetting', { officialAccount: { appId: 'wx2' } }, { token: admin });
    const [wechatRow] = await server.storage.db.selectFrom('settings').select('value').where('page', '=', 'weChatSetting').execute();
    const stored = JSON.parse(wechatRow?.value ?? '{}').officialAccount;
    for (const field of ['appSecret', 'token', 'aesKey'] as const) {
      expect(wechatRow?.value).not.toContain(wechat[field]);
      expect(sealer.open(stored[field], `settings:weChatSetting:officialAccount.${field}`)).toBe(wechat[field]);
    }
    expect(stored.appId).toBe('wx2');
  });

  it('are answered with a flag telling whether one is stored', async () => {
    const fresh = await startTestServer();
    try {
      const token = await fresh.login();
      const wechat = () => fresh.get<SettingsAnswer<'weChatSetting'>>('/api/settings/weChatSetting', { token });
      const none = { appSecret: '', hasAppSecret: false, token: '', hasToken: false, aesKey: '', hasAesKey: false };
      expect((await wechat()).body.data).toMatchObject({ officialAccount: none, miniProgram: none });
      const saved = await fresh.post<SettingsAnswer<'weChatSetting'>>(
        '/api/settings/weChatSetting',
        { officialAccount: { appId: 'wx1', appSecret: 'app-secret-1' } },
        { token },
      );
      expect(saved.body.data).toMatchObject({
        officialAccount: { appId: 'wx1', appSecret: '', hasAppSecret: true, hasToken: false, hasAesKey: false },
        miniProgram: none,
      });
      // The answer posted back as the form holds it, flags included, changes nothing stored.
      expect((await fresh.post('/api/settings/weChatSetting', saved.body.data, { token })).status).toBe(200);
      expect((await wechat()).body.data.officialAccount).toMatchObject({ appSecret: '', hasAppSecret: true, hasToken: false });
      expect(JSON.stringify((await wechat()).body)).not.toContain('app-secret-1');

      const software = () => fresh.get<SettingsAnswer<'softwareSetting'>>('/api/settings/softwareSetting', { token });
      expect((await software()).body.data.smtp).toBeNull();
      const smtp = { host: 'smtp.example.com', port: 465, secure: true, from: 'bot@example.com' };
      const keyless = await fresh.post<SettingsAnswer<'softwareSetting'>>('/api/settings/softwareSetting', { smtp }, { token });
      expect(keyless.body.data.smtp).toMatchObject({ password: '', hasPassword: false });
      await fresh.post('/api/settings/softwareSetting', { smtp: { ...smtp, password: 'pw-1' } }, { token });
      expect((await software()).body.data.smtp).toMatchObject({ password: '', hasPassword: true });
    } finally {
      await fresh.close();
    }
  });
});

describe('GET /api/site', () => {
  it('tells anyone the site name and logo', async () => {
    await server.post('/api/settings/softwareSetting', { siteName: 'Acme Support', logo: '/logo.png' }, { token: admin });
    const site = await server.get('/api/site');
    expect(site.status).toBe(200);
    expect(site.body.data).toEqual({ siteName: 'Acme Support', logo: '/logo.png' });
  });
});

describe('the widget', () => {
  it("init's settings reflect a saved page, in the visitor's language", async () => {
    await server.post('/api/settings/windowStyle', { title: 'Help desk', color: '#00aa55' }, { token: admin });
    const init = await server.post<{ settings: WidgetSettings }>('/api/visitor/init', { url: 'https://shop.example/', lang: 'en' });
    expect(init.body.data.settings).toMatchObject({ title: 'Help desk', color: '#00aa55' });
    await server.post('/api/settings/windowStyle', {}, { token: admin });
    const zh = await server.post<{ settings: WidgetSettings }>('/api/visitor/init', { url: 'https://shop.example/', lang: 'zh-CN' });
    expect(zh.body.data.settings.title).toBe('在线客服');
  });

  it('refuses a visitor message longer than the window settings allow, naming the field', async () => {
    const saved = await server.post('/api/settings/windowSetting', { ...settingsDefaults.windowSetting, maxLength: 10 }, { token: admin });
    expect(saved.status).toBe(200);
    const v = await visitor(server);
    const long = await server.post('/api/visitor/message', { YQToken: v.credential, msg: 'x'.repeat(11), onlyID: 'too-long' });
    expect(long.status).toBe(400);
    expect(long.body.msg).toBe('Invalid field msg: must be at most 10 long');
    const fits = await server.post('/api/visitor/message', { YQToken: v.credential, msg: 'x'.repeat(10), onlyID: 'fits' });
    expect(fits.status).toBe(200);
    v.socket.close();
    await server.post('/api/settings/windowSetting', {}, { token: admin });
  });

  it('hears 2020 on a socket held by another app sharing the database and the bus', async () => {
    const redisBus = server.config.redisUrl ? await RedisBus.connect(server.config.redisUrl, server.config.redisPrefix) : undefined;
    const peer: FastifyInstance = await buildApp({ config: server.config, storage: server.storage, bus: redisBus ?? server.bus });
    await peer.listen({ port: 0, host: '127.0.0.1' });
    try {
      const address = peer.server.address();
      if (typeof address !== 'object' || !address) throw new Error('no address');
      const here = await visitor(server);
      const init = await server.post<{ YQToken: string }>('/api/visitor/init', { url: 'https://shop.example/', lang: 'en' });
      const there = await TestSocket.open(`ws://127.0.0.1:${address.port}/ws/visitor?YQToken=${init.body.data.YQToken}&lang=en`);

      const saved = await server.post('/api/settings/windowStyle', { title: 'Live title' }, { token: admin });
      expect(saved.status).toBe(200);
      for (const socket of [here.socket, there]) {
        const pushed = (await socket.frame('2020')) as { data: WidgetSettings };
        expect(pushed.data.title).toBe('Live title');
      }
      there.close();
      here.socket.close();
    } finally {
      await peer.close();
      await redisBus?.close();
    }
  });

  it('refuses init and the socket from a site not allowed, and always allows the server itself', async () => {
    const credential = (await server.post<{ YQToken: string }>('/api/visitor/init', { url: 'https://shop.example/' })).body.data.YQToken;
    await server.post('/api/settings/appSetting', { allowedOrigins: ['https://shop.example'] }, { token: admin });
    try {
      const fromElsewhere = await server.post(
        '/api/visitor/init',
        { url: 'https://evil.example/' },
        { headers: { origin: 'https://evil.example' } },
      );
      expect(fromElsewhere.status).toBe(403);
      expect(fromElsewhere.body.msg).toBe('This website is not allowed to embed the chat');
      const zh = await server.post(
        '/api/visitor/init',
        { url: 'https://evil.example/' },
        { headers: { origin: 'https://evil.example' }, lang: 'zh' },
      );
      expect(zh.body.msg).toBe('此网站未获准嵌入在线客服');
      const listed = await server.post(
        '/api/visitor/init',
        { url: 'https://shop.example/' },
        { headers: { origin: 'https://shop.example' } },
      );
      expect(listed.status).toBe(200);
      const own = await server.post('/api/visitor/init', { url: `${server.url}/chat` }, { headers: { origin: server.url } });
      expect(own.status).toBe(200);

      const ws = `${server.url.replace('http', 'ws')}/ws/visitor?YQToken=${credential}`;
      await expect(TestSocket.open(ws, { headers: { origin: 'https://evil.example' } })).rejects.toThrow(/403/);
      const allowed = await TestSocket.open(ws, { headers: { origin: 'https://shop.example' } });
      await allowed.until(() => allowed.ws.readyState === allowed.ws.OPEN);
      allowed.close();
    } finally {
      await server.post('/api/settings/appSetting', {}, { token: admin });
    }
  });

  it('refuses visitor uploads when the app settings turn them off', async () => {
    const credential = (await server.post<{ YQToken: string }>('/api/visitor/init', { url: 'https://shop.example/' })).body.data.YQToken;
    await server.post('/api/settings/appSetting', { visitorUploads: false }, { token: admin });
    try {
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('89504e470d0a1a0a', 'hex')], { type: 'image/png' }), 'a.png');
      const response = await fetch(`${server.url}/api/visitor/upload?YQToken=${credential}`, {
        method: 'POST',
        body: form,
        headers: { 'accept-language': 'en' },
      });
      expect(response.status).toBe(403);
      expect(((await response.json()) as { msg: string }).msg).toBe('Visitors may not upload files on this site');
    } finally {
      await server.post('/api/settings/appSetting', {}, { token: admin });
    }
  });
});

describe('software settings', () => {
  it('make the site zone the one agents are told, and go back to the configured one when cleared', async () => {
    await server.post('/api/settings/softwareSetting', { timezone: 'America/New_York' }, { token: admin });
    expect((await server.get<{ timezone: string }>('/api/userInfo', { token: agent })).body.data.timezone).toBe('America/New_York');
    await server.post('/api/settings/softwareSetting', {}, { token: admin });
    expect((await server.get<{ timezone: string }>('/api/userInfo', { token: agent })).body.data.timezone).toBe(server.config.siteTimeZone);
  });

  it('cap uploads at uploadMaxMB', async () => {
    const credential = (await server.post<{ YQToken: string }>('/api/visitor/init', { url: 'https://shop.example/' })).body.data.YQToken;
    await server.post('/api/settings/softwareSetting', { uploadMaxMB: 1 }, { token: admin });
    try {
      const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(1024 * 1024 + 10)]);
      const form = new FormData();
      form.append('file', new Blob([png], { type: 'image/png' }), 'big.png');
      const response = await fetch(`${server.url}/api/visitor/upload?YQToken=${credential}`, {
        method: 'POST',
        body: form,
        headers: { 'accept-language': 'en' },
      });
      expect(response.status).toBe(413);
      expect(((await response.json()) as { msg: string }).msg).toBe('The file is too large; the limit is 1 MB');
    } finally {
      await server.post('/api/settings/softwareSetting', {}, { token: admin });
    }
  });

  it('send leave-message mails through the SMTP they name, with the stored password', async () => {
    const smtp = await smtpListener();
    try {
      const page = {
        smtp: {
          host: '127.0.0.1',
          port: smtp.port,
          secure: false,
          user: 'mailer',
          password: 'mail-pass',
          from: 'desk@shop.example',
          to: ['team@shop.example'],
        },
      };
      expect((await server.post('/api/settings/softwareSetting', page, { token: admin })).status).toBe(200);
      // Saved again as the form sends it back, without the password: the stored one still signs in.
      await server.post('/api/settings/softwareSetting', { smtp: { ...page.smtp, password: '' } }, { token: admin });
      const letter = await server.post('/api/visitor/letter', { name: 'Hana', content: 'Please call me back' });
      expect(letter.status).toBe(200);
      await waitFor(() => smtp.mails.length > 0, 10_000, 'the mail');
      expect(smtp.mails[0]).toMatchObject({ from: 'desk@shop.example', to: ['team@shop.example'] });
      expect(smtp.mails[0]?.raw).toContain('Please call me back');
    } finally {
      await server.post('/api/settings/softwareSetting', {}, { token: admin });
      await smtp.close();
    }
  });
});

describe('retentionDays', () => {
  it('purges visits and letters older than the period once saved, and keeps what is recent or still going on', async () => {
    const old = new Date(Date.now() - 100 * 86_400_000).toISOString();
    const guest = await visitor(server, 'https://shop.example/old-page');
    await guest.say('an old question still being answered');
    const oldLetter = await server.post<{ id: number }>('/api/visitor/letter', { name: 'Old', content: 'old letter' });
    const { db } = server.storage;
    const visitorRow = await db.selectFrom('visitors').select('id').where('public_id', '=', guest.id).executeTakeFirstOrThrow();
    await db.updateTable('visits').set({ created_at: old }).where('visitor_id', '=', visitorRow.id).execute();
    await db.updateTable('messages').set({ created_at: old }).where('visitor_id', '=', visitorRow.id).execute();
    await db.updateTable('letters').set({ created_at: old }).where('id', '=', oldLetter.body.data.id).execute();
    const newLetter = await server.post<{ id: number }>('/api/visitor/letter', { name: 'New', content: 'new letter' });

    await server.post('/api/settings/softwareSetting', { retentionDays: 30 }, { token: admin });
    try {
      const lettersLeft = async () => (await db.selectFrom('letters').select('id').execute()).map((row) => row.id);
      await waitFor(async () => !(await lettersLeft()).includes(oldLetter.body.data.id), 10_000, 'the old letter purged');
      expect(await lettersLeft()).toContain(newLetter.body.data.id);
      expect(await db.selectFrom('visits').select('id').where('visitor_id', '=', visitorRow.id).execute()).toEqual([]);
      const messages = await db.selectFrom('messages').select('msg').where('visitor_id', '=', visitorRow.id).execute();
      expect(messages.map((row) => row.msg)).toContain('an old question still being answered');
    } finally {
      await server.post('/api/settings/softwareSetting', {}, { token: admin });
      guest.socket.close();
    }
  });

  it('removes the files that only purged messages showed, and keeps a file still shown in a kept conversation', async () => {
    const old = new Date(Date.now() - 100 * 86_400_000).toISOString();
    const desk = await agentSocket(server, admin);
    const leaving = await visitor(server);
    const staying = await visitor(server);
    await leaving.say('here is my screenshot');
    await staying.say('hello');
    const upload = async (path: string) => {
      const form = new FormData();
      // A PNG's signature is all the upload's type sniffing needs.
      form.append('file', new Blob([Buffer.from('89504e470d0a1a0a', 'hex')], { type: 'image/png' }), 'shot.png');
      const response = await fetch(`${server.url}${path}`, { method: 'POST', body: form, headers: { authorization: `Bearer ${admin}` } });
      expect(response.status).toBe(200);
      return ((await response.json()) as { data: { url: string } }).data.url;
    };
    const screenshot = await upload(`/api/visitor/upload?YQToken=${leaving.credential}`);
    const shot = await server.post('/api/visitor/message', {
      YQToken: leaving.credential,
      msg: screenshot,
      onlyID: onlyId(),
      type: 'image',
    });
    expect(shot.status).toBe(200);
    // The agent sends one price list to both visitors: one message of it outlives the purge.
    const priceList = await upload('/api/talk/upload');
    for (const to of [leaving, staying]) {
      const sent = await server.post(
        '/api/talk/send',
        { YQToken: to.id, msg: priceList, onlyID: onlyId(), type: 'image' },
        { token: admin },
      );
      expect(sent.status).toBe(200);
    }
    expect((await server.post('/api/talk/end', { YQToken: leaving.id }, { token: admin })).status).toBe(200);

    const { db } = server.storage;
    const leavingRow = await db.selectFrom('visitors').select('id').where('public_id', '=', leaving.id).executeTakeFirstOrThrow();
    await db.updateTable('messages').set({ created_at: old }).where('visitor_id', '=', leavingRow.id).execute();
    await db.updateTable('conversations').set({ ended_at: old }).where('visitor_id', '=', leavingRow.id).execute();
    const onDisk = (url: string) => existsSync(join(server.config.dataDir, 'uploads', url.split('/')[3] ?? ''));
    expect(onDisk(screenshot)).toBe(true);

    await server.post('/api/settings/softwareSetting', { retentionDays: 30 }, { token: admin });
    try {
      await waitFor(() => !onDisk(screenshot), 10_000, 'the purged screenshot removed from disk');
      expect((await fetch(server.url + screenshot)).status).toBe(404);
      expect(await db.selectFrom('messages').select('id').where('visitor_id', '=', leavingRow.id).execute()).toEqual([]);
      expect(onDisk(priceList)).toBe(true);
      expect((await fetch(server.url + priceList)).status).toBe(200);
    } finally {
      await server.post('/api/settings/softwareSetting', {}, { token: admin });
      for (const socket of [desk, leaving.socket, staying.socket]) socket.close();
    }
  });
  it('keeps a file a purged message showed while the site logo still shows it, for the sweep to judge later', async () => {
    const old = new Date(Date.now() - 100 * 86_400_000).toISOString();
    const leaving = await visitor(server);
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('89504e470d0a1a0a', 'hex')], { type: 'image/png' }), 'logo.png');
    const response = await fetch(`${server.url}/api/talk/upload`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${admin}` },
    });
    const logo = ((await response.json()) as { data: { url: string } }).data.url;
    const name = logo.split('/')[3] ?? '';
    // The agent shows the visitor the new logo, then makes it the site's.
    await leaving.say('what does the new logo look like?');
    const desk = await agentSocket(server, admin);
    const sent = await server.post('/api/talk/send', { YQToken: leaving.id, msg: logo, onlyID: onlyId(), type: 'image' }, { token: admin });
    expect(sent.status).toBe(200);
    expect((await server.post('/api/talk/end', { YQToken: leaving.id }, { token: admin })).status).toBe(200);
    const { db } = server.storage;
    // As the upload sweep marks it once it has read the message.
    await db.updateTable('uploads').set({ referenced: 1 }).where('name', '=', name).execute();
    const leavingRow = await db.selectFrom('visitors').select('id').where('public_id', '=', leaving.id).executeTakeFirstOrThrow();
    await db.updateTable('messages').set({ created_at: old }).where('visitor_id', '=', leavingRow.id).execute();
    await db.updateTable('conversations').set({ ended_at: old }).where('visitor_id', '=', leavingRow.id).execute();

    await server.post('/api/settings/softwareSetting', { logo, retentionDays: 30 }, { token: admin });
    try {
      await waitFor(
        async () => (await db.selectFrom('messages').select('id').where('visitor_id', '=', leavingRow.id).execute()).length === 0,
        10_000,
        'the old conversation purged',
      );
      const logoOnSite = await fetch(server.url + (await server.get<{ logo: string }>('/api/site')).body.data.logo);
      expect(logoOnSite.status).toBe(200);
      await logoOnSite.arrayBuffer();
      // No message holds it any more: the upload sweep keeps it while a setting shows it, and no longer.
      const row = await db.selectFrom('uploads').select('referenced').where('name', '=', name).executeTakeFirst();
      expect(row?.referenced).toBe(0);
    } finally {
      await server.post('/api/settings/softwareSetting', {}, { token: admin });
      desk.close();
      leaving.socket.close();
    }
  });
});
