import type { Letter, ListData } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, framesOf, visitor } from './chat-harness.js';
import { createAgent, startTestServer, type TestServer } from './harness.js';
import { smtpListener } from './smtp.js';
import { freePort, waitFor } from './waiting.js';

let server: TestServer;
let admin: string;
let plain: string;
let historian: string;

/** A role of the given permissions and an agent in it, hidden so that it is given no conversations. */
async function agentWith(username: string, permissions: string[]): Promise<string> {
  const role = await server.post('/api/role/doEdit', { name: `role-${username}`, permissions }, { token: admin });
  expect(role.status).toBe(200);
  const token = (await createAgent(server, admin, { username, role: `role-${username}` })).token ?? '';
  await server.post('/api/index/state', { state: '1' }, { token });
  return token;
}

async function leave(fields: Record<string, unknown>, target = server): Promise<number> {
  const response = await target.post<{ id: number }>('/api/visitor/letter', { name: 'Ann', content: 'Please call me back', ...fields });
  expect(response.status).toBe(200);
  return response.body.data.id;
}

async function list(query: string, token = admin): Promise<ListData<Letter>> {
  const response = await server.get<ListData<Letter>>(`/api/letter/getList?${query}`, { token });
  expect(response.status).toBe(200);
  return response.body.data;
}

const idsOf = (data: ListData<Letter>) => data.list.map((letter) => letter.id);

beforeAll(async () => {
  server = await startTestServer({ SITE_TIMEZONE: 'Pacific/Honolulu' });
  admin = await server.login();
  await server.post('/api/index/state', { state: '1' }, { token: admin });
  plain = await agentWith('plain', []);
  historian = await agentWith('historian', ['seePermissions:seeHistorical']);
});
afterAll(() => server.close());

describe('letter routes: who may call them', () => {
  it('answer 401 without a token and 403 without seeHistorical; unreadCount is for any agent', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/letter/getList'],
      ['POST', '/api/letter/read', { ids: [1] }],
      ['POST', '/api/letter/doEdit', { id: 1, handled: true }],
      ['POST', '/api/letter/doDelete', { ids: [1] }],
    ];
    for (const [method, path, body] of calls) {
      const call = (token?: string) => (method === 'GET' ? server.get(path, { token }) : server.post(path, body, { token }));
      expect((await call()).status, path).toBe(401);
      expect((await call(plain)).status, path).toBe(403);
      expect((await call(historian)).status, path).not.toBe(403);
    }
    expect((await server.get('/api/letter/unreadCount')).status).toBe(401);
    const count = await server.get<number>('/api/letter/unreadCount', { token: plain });
    expect(count.status).toBe(200);
    expect(typeof count.body.data).toBe('number');
  });
});

describe('leave-messages in the back office', () => {
  it('lists newest first with the visitor public id, filters by state and keyword, and reads, handles, notes and deletes', async () => {
    const guest = await visitor(server);
    const fromWidget = await leave({ YQToken: guest.credential, name: 'Bea Widget', phone: '+1 555 0100', content: 'Where is parcel 77?' });
    const anonymous = await leave({ name: 'Cal', email: 'cal@example.com', content: 'Invoice question' });
    const third = await leave({ name: 'Dee', content: 'Opening hours?' });
    guest.socket.close();

    const all = await list('pageSize=100');
    expect(idsOf(all).slice(0, 3)).toEqual([third, anonymous, fromWidget]);
    const widgetLetter = all.list.find((letter) => letter.id === fromWidget);
    expect(widgetLetter).toMatchObject({
      YQToken: guest.id,
      name: 'Bea Widget',
      phone: '+1 555 0100',
      email: '',
      content: 'Where is parcel 77?',
      read: false,
      handled: false,
      handledBy: null,
      note: '',
    });
    // Agents see the visitor's public id, never its credential.
    expect(JSON.stringify(all)).not.toContain(guest.credential);
    expect(all.list.find((letter) => letter.id === anonymous)?.YQToken).toBeNull();

    const unreadBefore = (await server.get<number>('/api/letter/unreadCount', { token: plain })).body.data;
    expect(unreadBefore).toBeGreaterThanOrEqual(3);

    // keyword over name, phone, email and content
    expect(idsOf(await list('keyword=parcel'))).toEqual([fromWidget]);
    expect(idsOf(await list('keyword=bea%20w'))).toEqual([fromWidget]);
    expect(idsOf(await list('keyword=555%200100'))).toEqual([fromWidget]);
    expect(idsOf(await list('keyword=CAL%40EXAMPLE'))).toEqual([anonymous]);
    expect(idsOf(await list('keyword=100%25'))).toEqual([]);
    // The total counts what the filter keeps (the letters alone, their visitors joined for the page's rows).
    expect((await list('keyword=parcel')).total).toBe(1);
    const everything = await list('pageSize=100');
    const second = await list('pageSize=1&pageNo=2');
    expect(second.total).toBe(everything.list.length);
    expect(second.list.map((letter) => [letter.id, letter.YQToken])).toEqual(
      everything.list.slice(1, 2).map((letter) => [letter.id, letter.YQToken]),
    );

    expect((await server.post('/api/letter/read', { ids: [fromWidget, anonymous] }, { token: historian })).status).toBe(200);
    expect((await server.get<number>('/api/letter/unreadCount', { token: plain })).body.data).toBe(unreadBefore - 2);

    const handled = await server.post<Letter>(
      '/api/letter/doEdit',
      { id: anonymous, handled: true, note: 'Called back on Monday' },
      { token: historian },
    );
    expect(handled.status).toBe(200);
    expect(handled.body.data).toMatchObject({
      id: anonymous,
      read: true,
      handled: true,
      handledBy: 'historian',
      note: 'Called back on Monday',
    });
    // Handling an unread letter reads it too.
    const handledUnread = await server.post<Letter>('/api/letter/doEdit', { id: third, handled: true }, { token: admin });
    expect(handledUnread.body.data).toMatchObject({ read: true, handled: true, handledBy: 'admin', note: '' });

    const states = async (state: string) => idsOf(await list(`state=${state}&pageSize=100`));
    expect(await states('unread')).not.toContain(fromWidget);
    expect(await states('read')).toContain(fromWidget);
    expect(await states('read')).not.toContain(anonymous);
    expect(await states('handled')).toEqual(expect.arrayContaining([anonymous, third]));
    expect(await states('handled')).not.toContain(fromWidget);

    // Un-handling forgets who handled it and keeps the note unless a new one is given.
    const reopened = await server.post<Letter>('/api/letter/doEdit', { id: anonymous, handled: false }, { token: historian });
    expect(reopened.body.data).toMatchObject({ handled: false, handledBy: null, read: true, note: 'Called back on Monday' });
    expect(await states('read')).toContain(anonymous);

    expect((await server.post('/api/letter/doEdit', { id: 999_999, handled: true }, { token: admin })).status).toBe(404);
    expect((await server.post('/api/letter/doEdit', { id: anonymous, handled: 'yes' }, { token: admin })).status).toBe(400);

    expect((await server.post('/api/letter/doDelete', { ids: [third] }, { token: historian })).status).toBe(200);
    expect(idsOf(await list('pageSize=100'))).not.toContain(third);
  });

  it('a day filter is a day in the site time zone', async () => {
    const before = await leave({ name: 'Late Night', content: 'Sent before local midnight' });
    const after = await leave({ name: 'Early Bird', content: 'Sent after local midnight' });
    // Honolulu is UTC-10: 09:59:59Z is 23:59:59 of the day before there, 10:00Z its midnight.
    await server.storage.db.updateTable('letters').set({ created_at: '2026-01-15T09:59:59.999Z' }).where('id', '=', before).execute();
    await server.storage.db.updateTable('letters').set({ created_at: '2026-01-15T10:00:00.000Z' }).where('id', '=', after).execute();

    expect(idsOf(await list('from=2026-01-15&to=2026-01-15'))).toEqual([after]);
    expect(idsOf(await list('from=2026-01-14&to=2026-01-14'))).toEqual([before]);
    expect(idsOf(await list('from=2026-01-14&to=2026-01-15'))).toEqual([after, before]);
    expect(idsOf(await list('to=2026-01-14&keyword=midnight'))).toEqual([before]);
    // Instants are taken as they are.
    expect(idsOf(await list('from=2026-01-15T10:00:00Z&to=2026-01-15T10:00:00Z'))).toEqual([after]);
  });
});

describe('a new leave-message on agents’ sockets', () => {
  it('reaches an Admin and a seeHistorical agent as 8012 with the Letter, and not a plain agent', async () => {
    const adminSocket = await agentSocket(server, admin);
    const historianSocket = await agentSocket(server, historian);
    const plainSocket = await agentSocket(server, plain);
    const guest = await visitor(server);
    const id = await leave({ YQToken: guest.credential, name: 'Eve', content: 'Pushed to the right people' });

    for (const socket of [adminSocket, historianSocket]) {
      const frame = await socket.until(() => framesOf(socket, '8012').find((item) => (item.data as Letter).id === id));
      expect(frame.data).toMatchObject({ id, YQToken: guest.id, name: 'Eve', content: 'Pushed to the right people', read: false });
      expect(JSON.stringify(frame)).not.toContain(guest.credential);
    }
    // A page the visitor opens after leaving the letter reaches every agent: once the plain agent has it,
    // the letter would have come before it.
    await server.post('/api/visitor/visit', { YQToken: guest.credential, url: 'https://shop.example/after-letter' });
    await plainSocket.until(() =>
      framesOf(plainSocket, '8010').some((item) => (item.data as { URL: string }).URL.endsWith('/after-letter')),
    );
    expect(framesOf(plainSocket, '8012')).toEqual([]);
    for (const socket of [adminSocket, historianSocket, plainSocket, guest.socket]) socket.close();
  });
});

describe('a new leave-message by mail', () => {
  it('is mailed as text to every configured address when SMTP is configured', async () => {
    const smtp = await smtpListener();
    const mailing = await startTestServer({
      SMTP_URL: `smtp://mailer:mail-pass@127.0.0.1:${smtp.port}`,
      MAIL_FROM: 'parley@shop.example',
      LETTER_MAIL_TO: 'support@shop.example, boss@shop.example',
      SITE_LANGUAGE: 'en',
    });
    try {
      const id = await leave({ name: 'Fay', email: 'fay@example.com', content: 'My order 4711 never arrived' }, mailing);
      await waitFor(() => smtp.mails.length > 0, 10_000, 'the mail');
      const [mail] = smtp.mails;
      expect(mail?.from).toBe('parley@shop.example');
      expect(mail?.to).toEqual(['support@shop.example', 'boss@shop.example']);
      expect(mail?.raw).toMatch(/^Subject: New leave-message from Fay\r?$/m);
      expect(mail?.raw).toMatch(/^Content-Type: text\/plain/m);
      expect(mail?.raw).not.toMatch(/text\/html/);
      expect(mail?.raw).toContain('My order 4711 never arrived');
      expect(mail?.raw).toContain('fay@example.com');
      const token = await mailing.login();
      const stored = await mailing.get<ListData<Letter>>('/api/letter/getList', { token });
      expect(stored.body.data.list.map((letter) => letter.id)).toContain(id);
    } finally {
      await mailing.close();
      await smtp.close();
    }
  });

  it('is stored all the same when the mail server is down', async () => {
    const downPort = await freePort();
    const mailing = await startTestServer({
      SMTP_URL: `smtp://mailer:mail-pass@127.0.0.1:${downPort}`,
      LETTER_MAIL_TO: 'support@shop.example',
    });
    try {
      const id = await leave({ name: 'Gus', content: 'Nobody will mail this' }, mailing);
      const token = await mailing.login();
      const stored = await mailing.get<ListData<Letter>>('/api/letter/getList', { token });
      expect(stored.status).toBe(200);
      expect(stored.body.data.list.find((letter) => letter.id === id)).toMatchObject({ name: 'Gus', content: 'Nobody will mail this' });
      expect((await mailing.get<number>('/api/letter/unreadCount', { token })).body.data).toBe(1);
    } finally {
      await mailing.close();
    }
  });
});
