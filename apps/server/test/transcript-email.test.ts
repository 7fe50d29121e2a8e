import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, onlyId, type TestVisitor, visitor } from './chat-harness.js';
import { startTestServer, type TestServer } from './harness.js';
import { type ReceivedMail, smtpListener } from './smtp.js';
import type { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';

let smtp: Awaited<ReturnType<typeof smtpListener>>;
let server: TestServer;
let admin: string;
let console: TestSocket;

async function configure(page: string, values: Record<string, unknown>): Promise<void> {
  const current = await server.get<Record<string, unknown>>(`/api/settings/${page}`, { token: admin });
  const saved = await server.post(`/api/settings/${page}`, { ...current.body.data, ...values }, { token: admin });
  expect(saved.status).toBe(200);
}

/** The mail's text as a reader sees it: quoted-printable soft breaks and escapes undone. */
function readable(mail: ReceivedMail): string {
  return mail.raw
    .replace(/=\r?\n/g, '')
    .replace(/(?:=[0-9A-F]{2})+/g, (run) => Buffer.from(run.replaceAll('=', ''), 'hex').toString('utf8'));
}

/** A visitor who left an address, a short exchange with the agent, and the agent ending it. */
async function conversation(email: string, lang = 'en'): Promise<TestVisitor> {
  const v = await visitor(server, 'https://shop.example/', { lang });
  expect((await server.post('/api/visitor/contact', { YQToken: v.credential, name: 'Ann', email })).status).toBe(200);
  await v.say('Do you ship <b>abroad</b> & to Canada?');
  const answered = await server.post(
    '/api/talk/send',
    { YQToken: v.id, msg: 'Yes, we ship worldwide', onlyID: onlyId() },
    { token: admin },
  );
  expect(answered.status).toBe(200);
  expect((await server.post('/api/talk/end', { YQToken: v.id }, { token: admin })).status).toBe(200);
  return v;
}

beforeAll(async () => {
  smtp = await smtpListener();
  server = await startTestServer({ SITE_TIMEZONE: 'Asia/Shanghai' });
  admin = await server.login();
  console = await agentSocket(server, admin);
  await configure('autoAnswer', { greeting: '' });
  await configure('softwareSetting', {
    siteName: 'Shop',
    timezone: 'Asia/Shanghai',
    smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: 'mailer', password: 'mail-pass', from: 'desk@shop.example', to: [] },
  });
});
afterAll(async () => {
  console.close();
  await server.close();
  await smtp.close();
});

describe('the transcript of an ended conversation', () => {
  it('is not mailed while the app settings leave it off', async () => {
    await configure('appSetting', { transcriptEmail: false });
    const v = await conversation('off@example.com');
    // The next mail, once transcripts are on, is the first one the server sends.
    await configure('appSetting', { transcriptEmail: true });
    const w = await conversation('on@example.com');
    await waitFor(() => smtp.mails.length > 0, 10_000, 'the transcript');
    expect(smtp.mails.map((mail) => mail.to)).toEqual([['on@example.com']]);
    for (const socket of [v.socket, w.socket]) socket.close();
    smtp.mails.length = 0;
  });

  it('is mailed to the visitor, in text and escaped HTML, with every message at the site’s time', async () => {
    await configure('appSetting', { transcriptEmail: true });
    const v = await conversation('ann@example.com');
    await waitFor(() => smtp.mails.length > 0, 10_000, 'the transcript');
    const [mail] = smtp.mails;
    if (!mail) throw new Error('no mail');
    expect(mail.from).toBe('desk@shop.example');
    expect(mail.to).toEqual(['ann@example.com']);
    const text = readable(mail);
    expect(text).toMatch(/^Subject: Your conversation with Shop\r?$/m);
    expect(text).toMatch(/text\/plain/);
    expect(text).toMatch(/text\/html/);
    expect(text).toMatch(/\] You: Do you ship <b>abroad<\/b> & to Canada\?/);
    expect(text).toMatch(/\] admin: Yes, we ship worldwide/);
    expect(text).toContain('The conversation has ended');
    expect(text).toContain('Do you ship &#60;b&#62;abroad&#60;/b&#62; &#38; to Canada?');
    expect(text).not.toContain('<b>abroad</b></');
    expect(text).toContain('Asia/Shanghai');
    // The stamp is the site's wall clock: UTC+8 at the moment the messages were written.
    const stamp = /\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}):\d{2}\] You:/.exec(text)?.[1];
    const shanghai = new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 16).replace('T', ' ');
    expect(Math.abs(Date.parse(`${stamp}Z`) - Date.parse(`${shanghai}Z`))).toBeLessThanOrEqual(60_000);
    v.socket.close();
    smtp.mails.length = 0;
  });

  it('is not mailed to a visitor who left no address, and the end still succeeds when the mail server is down', async () => {
    await configure('appSetting', { transcriptEmail: true });
    const nobody = await visitor(server);
    await nobody.say('No address here');
    expect((await server.post('/api/talk/end', { YQToken: nobody.id }, { token: admin })).status).toBe(200);

    await smtp.close();
    const v = await conversation('down@example.com');
    expect(smtp.mails).toEqual([]);
    for (const socket of [nobody.socket, v.socket]) socket.close();
  });
});
