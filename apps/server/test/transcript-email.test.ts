import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, onlyId, type TestVisitor, visitor } from './chat-harness.js';
import { configure, startTestServer, type TestServer } from './harness.js';
import { type ReceivedMail, smtpListener } from './smtp.js';
import type { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';

let smtp: Awaited<ReturnType<typeof smtpListener>>;
let server: TestServer;
let admin: string;
let console: TestSocket;

/** The mail's text as a reader sees it: quoted-printable soft breaks and escapes undone. */
function readable(mail: ReceivedMail): string {
  return mail.raw
    .replace(/=\r?\n/g, '')
    .replace(/(?:=[0-9A-F]{2})+/g, (run) => Buffer.from(run.replaceAll('=', ''), 'hex').toString('utf8'));
}

/** Mails that reached `address`, whose subject matches. */
const mailsTo = (address: string, subject: RegExp) =>
  smtp.mails.filter((mail) => mail.to.includes(address) && subject.test(readable(mail)));
const CONFIRMATION = /^Subject: Confirm transcript mails from Shop\r?$/m;
const TRANSCRIPT = /^Subject: Your conversation with Shop\r?$/m;

/**
 * A visitor who left an address and, while transcripts are on, opened the link of the confirmation mail
 * (a visitor whose address is not proved gets no transcript: transcript-consent.test.ts).
 */
async function contact(email: string, lang: string, confirm: boolean): Promise<TestVisitor> {
  const v = await visitor(server, 'https://shop.example/', { lang });
  const given = await server.post<{ transcript: string }>('/api/visitor/contact', { YQToken: v.credential, name: 'Ann', email });
  expect(given.status).toBe(200);
  if (!confirm) {
    expect(given.body.data.transcript).toBe('none');
    return v;
  }
  expect(given.body.data.transcript).toBe('sent');
  await waitFor(() => mailsTo(email, CONFIRMATION).length > 0, 10_000, 'the confirmation mail');
  const [mail] = mailsTo(email, CONFIRMATION);
  const token = mail && /\/mail\/confirm\?token=([A-Za-z0-9_-]{43})/.exec(readable(mail))?.[1];
  const confirmed = await fetch(`${server.url}/mail/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${token}`,
  });
  expect(confirmed.status).toBe(200);
  return v;
}

/** A visitor who left an address, a short exchange with the agent, and the agent ending it. */
async function conversation(email: string, lang = 'en', confirm = true): Promise<TestVisitor> {
  const v = await contact(email, lang, confirm);
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
  await configure(server, admin, 'autoAnswer', { greeting: '' });
  await configure(server, admin, 'softwareSetting', {
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
    await configure(server, admin, 'appSetting', { transcriptEmail: false });
    const v = await conversation('off@example.com', 'en', false);
    // The next mails, once transcripts are on, are the first ones the server sends.
    await configure(server, admin, 'appSetting', { transcriptEmail: true });
    const w = await conversation('on@example.com');
    await waitFor(() => mailsTo('on@example.com', TRANSCRIPT).length > 0, 10_000, 'the transcript');
    expect(smtp.mails.map((mail) => mail.to)).toEqual([['on@example.com'], ['on@example.com']]);
    for (const socket of [v.socket, w.socket]) socket.close();
    smtp.mails.length = 0;
  });

  it('is mailed to the visitor, in text and escaped HTML, with every message at the site’s time', async () => {
    await configure(server, admin, 'appSetting', { transcriptEmail: true });
    const v = await conversation('ann@example.com');
    await waitFor(() => mailsTo('ann@example.com', TRANSCRIPT).length > 0, 10_000, 'the transcript');
    const [mail] = mailsTo('ann@example.com', TRANSCRIPT);
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
    await configure(server, admin, 'appSetting', { transcriptEmail: true });
    const nobody = await visitor(server);
    await nobody.say('No address here');
    expect((await server.post('/api/talk/end', { YQToken: nobody.id }, { token: admin })).status).toBe(200);

    const v = await contact('down@example.com', 'en', true);
    await v.say('Is anyone there?');
    smtp.mails.length = 0;
    await smtp.close();
    expect((await server.post('/api/talk/end', { YQToken: v.id }, { token: admin })).status).toBe(200);
    expect(smtp.mails).toEqual([]);
    for (const socket of [nobody.socket, v.socket]) socket.close();
  });
});
