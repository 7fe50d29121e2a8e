import type { WidgetSettings } from '@parley/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSocket, onlyId, type TestVisitor, visitor } from './chat-harness.js';
import { configure, type ManualClock, manualClock, startTestServer, type TestServer } from './harness.js';
import { type ReceivedMail, smtpListener } from './smtp.js';
import type { TestSocket } from './sockets.js';
import { waitFor } from './waiting.js';

/** Seconds a confirmation link lives here: short, so the clock can pass it. */
const CONFIRM_TTL = 600;

let smtp: Awaited<ReturnType<typeof smtpListener>>;
let server: TestServer;
let clock: ManualClock;
let admin: string;
let console: TestSocket;
const sockets: TestSocket[] = [];
/** Each test asks from addresses of its own, so the per-requester limit of one test leaves the others alone. */
let requester = 0;
const nextRequester = () => `198.51.100.${++requester}`;

/**
 * The mail as a reader sees it: folded headers unfolded, encoded words undone in the headers, and
 * quoted-printable undone in the body only (a header's `token=F7…` is not an escape).
 */
function readable(mail: ReceivedMail): string {
  const unfolded = mail.raw
    .replace(/\r?\n[ \t]+/g, ' ')
    .replace(/\?= =\?/g, '?==?')
    .replace(/=\?utf-8\?b\?([^?]*)\?=/gi, (_, text: string) => Buffer.from(text, 'base64').toString('utf8'));
  const split = unfolded.search(/\r?\n\r?\n/);
  const head = split < 0 ? unfolded : unfolded.slice(0, split);
  const body = (split < 0 ? '' : unfolded.slice(split))
    .replace(/=\r?\n/g, '')
    .replace(/(?:=[0-9A-F]{2})+/g, (run) => Buffer.from(run.replaceAll('=', ''), 'hex').toString('utf8'));
  return (head + body).replace(
    /(Content-Transfer-Encoding: base64\r?\n(?:[^\r\n]+\r?\n)*\r?\n)([A-Za-z0-9+/=\r\n]+)/gi,
    (_, head: string, body: string) => head + Buffer.from(body.replace(/\s/g, ''), 'base64').toString('utf8'),
  );
}

const CONFIRMATION = { en: /^Subject: Confirm transcript mails from Shop\r?$/m, zh: /^Subject: 请确认接收 Shop 的对话记录邮件\r?$/m };
const TRANSCRIPT = /^Subject: Your conversation with Shop\r?$/m;

const mailsTo = (address: string, subject: RegExp) =>
  smtp.mails.filter((mail) => mail.to.includes(address) && subject.test(readable(mail)));

/** The token of a link of `path` in the mail. */
function tokenIn(mail: ReceivedMail | undefined, path: '/mail/confirm' | '/mail/stop'): string {
  const token = mail && new RegExp(`${server.url}${path}\\?token=([A-Za-z0-9_-]{43})`).exec(readable(mail))?.[1];
  if (!token) throw new Error(`no ${path} link in the mail`);
  return token;
}

async function newVisitor(lang = 'en'): Promise<TestVisitor> {
  const v = await visitor(server, 'https://shop.example/', { lang });
  sockets.push(v.socket);
  return v;
}

/** POST /api/visitor/contact from a requesting address: what it answers about transcripts. */
async function giveAddress(v: TestVisitor, email: string, from: string): Promise<{ status: number; transcript: string }> {
  const response = await server.post<{ transcript: string }>(
    '/api/visitor/contact',
    { YQToken: v.credential, email },
    { headers: { 'x-forwarded-for': from } },
  );
  return { status: response.status, transcript: response.body.data?.transcript };
}

/** Presses the button of a link's page: a form post of its token, as a browser sends it. */
const press = (path: '/mail/confirm' | '/mail/stop', token: string, lang = 'en') =>
  fetch(`${server.url}${path}?token=${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': lang },
    body: `token=${token}`,
  });

/** The visitor writes, the agent answers, and the agent ends the conversation. */
async function talkAndEnd(v: TestVisitor): Promise<void> {
  await v.say('Where is my order?');
  expect((await server.post('/api/talk/send', { YQToken: v.id, msg: 'On its way', onlyID: onlyId() }, { token: admin })).status).toBe(200);
  expect((await server.post('/api/talk/end', { YQToken: v.id }, { token: admin })).status).toBe(200);
}

/**
 * A visitor whose transcript does go out, ended after the conversations under test: once its transcript
 * has arrived, theirs would have too (mails leave in the order conversations end, and no sleep is needed).
 */
async function witness(): Promise<void> {
  const address = `witness-${requester}@example.org`;
  const v = await newVisitor();
  expect((await giveAddress(v, address, nextRequester())).transcript).toBe('sent');
  await waitFor(() => mailsTo(address, CONFIRMATION.en).length > 0, 10_000, 'the witness confirmation');
  expect((await press('/mail/confirm', tokenIn(mailsTo(address, CONFIRMATION.en)[0], '/mail/confirm'))).status).toBe(200);
  await talkAndEnd(v);
  await waitFor(() => mailsTo(address, TRANSCRIPT).length > 0, 10_000, 'the witness transcript');
}

beforeAll(async () => {
  smtp = await smtpListener();
  clock = manualClock();
  server = await startTestServer(
    { SITE_TIMEZONE: 'Asia/Shanghai', TRUST_PROXY: '127.0.0.1', TRANSCRIPT_CONFIRM_TTL: String(CONFIRM_TTL) },
    { authNow: clock.now },
  );
  admin = await server.login();
  console = await agentSocket(server, admin);
  await configure(server, admin, 'autoAnswer', { greeting: '' });
  await configure(server, admin, 'softwareSetting', {
    siteName: 'Shop',
    smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: 'mailer', password: 'mail-pass', from: 'desk@shop.example', to: [] },
  });
  await configure(server, admin, 'appSetting', { transcriptEmail: true });
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  console.close();
  await server.close();
  await smtp.close();
});

describe('POST /api/visitor/contact with an address', () => {
  it('answers 401 to an unknown visitor, and mails nobody', async () => {
    const unknown = await server.post('/api/visitor/contact', { YQToken: 'x'.repeat(43), email: 'victim@example.org' });
    expect(unknown.status).toBe(401);
    expect(smtp.mails.filter((mail) => mail.to.includes('victim@example.org'))).toEqual([]);
  });

  it('tells the widget that transcripts are offered', async () => {
    const init = await server.post<{ settings: WidgetSettings }>('/api/visitor/init', { url: 'https://shop.example/' });
    expect(init.body.data.settings.transcript).toBe(true);
  });

  it('mails a confirmation link, in the visitor’s language, and no transcript until it is used', async () => {
    const from = nextRequester();
    const v = await newVisitor('zh');
    expect(await giveAddress(v, 'li@example.org', from)).toEqual({ status: 200, transcript: 'sent' });
    await waitFor(() => mailsTo('li@example.org', CONFIRMATION.zh).length > 0, 10_000, 'the confirmation mail');
    const [mail] = mailsTo('li@example.org', CONFIRMATION.zh);
    const text = readable(mail as ReceivedMail);
    expect(mail?.from).toBe('desk@shop.example');
    expect(text).toContain('链接在 10 分钟内有效，只能使用一次。');
    // Every mail offers to stop all mail, in its text and as a mail program's one-click header.
    const stop = tokenIn(mail, '/mail/stop');
    expect(text).toMatch(new RegExp(`^List-Unsubscribe: <${server.url}/mail/stop\\?token=${stop}>\\r?$`, 'm'));
    expect(text).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    // A mail scanner that opens the link confirms nothing: the page asks, in the visitor's language.
    const token = tokenIn(mail, '/mail/confirm');
    const opened = await fetch(`${server.url}/mail/confirm?token=${token}`, { headers: { 'accept-language': 'en' } });
    expect(opened.status).toBe(200);
    expect(opened.headers.get('cache-control')).toBe('no-store');
    const html = await opened.text();
    expect(html).toContain('<html lang="zh">');
    expect(html).toContain('<form method="post">');
    expect(html).toContain('确认');

    await talkAndEnd(v);
    await witness();
    expect(mailsTo('li@example.org', TRANSCRIPT)).toEqual([]);
    expect(mailsTo('li@example.org', /Subject: 您在 Shop 的对话记录/)).toEqual([]);
  });

  it('sends the transcript once the link was used, and the link works only once', async () => {
    const v = await newVisitor();
    expect((await giveAddress(v, 'ann@example.org', nextRequester())).transcript).toBe('sent');
    await waitFor(() => mailsTo('ann@example.org', CONFIRMATION.en).length > 0, 10_000, 'the confirmation mail');
    const token = tokenIn(mailsTo('ann@example.org', CONFIRMATION.en)[0], '/mail/confirm');
    const confirmed = await press('/mail/confirm', token);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('Confirmed');

    const again = await press('/mail/confirm', token);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('This link no longer works');
    expect((await fetch(`${server.url}/mail/confirm?token=${token}`)).status).toBe(410);

    // Giving the confirmed address again mails no second confirmation.
    expect((await giveAddress(v, 'ann@example.org', nextRequester())).transcript).toBe('confirmed');
    await talkAndEnd(v);
    await waitFor(() => mailsTo('ann@example.org', TRANSCRIPT).length > 0, 10_000, 'the transcript');
    expect(mailsTo('ann@example.org', CONFIRMATION.en)).toHaveLength(1);
    // Another visitor giving the same address proves nothing for it: their own link is needed.
    const other = await newVisitor();
    expect((await giveAddress(other, 'ann@example.org', nextRequester())).transcript).toBe('sent');
  });

  it('refuses an expired link, and a made-up one', async () => {
    const v = await newVisitor();
    expect((await giveAddress(v, 'late@example.org', nextRequester())).transcript).toBe('sent');
    await waitFor(() => mailsTo('late@example.org', CONFIRMATION.en).length > 0, 10_000, 'the confirmation mail');
    const token = tokenIn(mailsTo('late@example.org', CONFIRMATION.en)[0], '/mail/confirm');
    clock.advance((CONFIRM_TTL + 1) * 1000);
    expect((await fetch(`${server.url}/mail/confirm?token=${token}`)).status).toBe(410);
    expect((await press('/mail/confirm', token)).status).toBe(410);
    expect((await press('/mail/confirm', 'A'.repeat(43))).status).toBe(410);
    expect((await press('/mail/confirm', 'not-a-token')).status).toBe(404);
    await talkAndEnd(v);
    await witness();
    expect(mailsTo('late@example.org', TRANSCRIPT)).toEqual([]);
  });
});

describe('confirmation mail limits', () => {
  it('per address: at most 3 a day, whoever asks, then the visitor is told and nothing is sent', async () => {
    for (let i = 0; i < 3; i++)
      expect((await giveAddress(await newVisitor(), 'victim@example.org', nextRequester())).transcript).toBe('sent');
    expect(await giveAddress(await newVisitor(), 'victim@example.org', nextRequester())).toEqual({ status: 200, transcript: 'limited' });
    await witness();
    expect(mailsTo('victim@example.org', CONFIRMATION.en)).toHaveLength(3);
  });

  it('per visitor: at most 3 addresses a day', async () => {
    const v = await newVisitor();
    const from = nextRequester();
    for (let i = 0; i < 3; i++) expect((await giveAddress(v, `many-${i}@example.org`, from)).transcript).toBe('sent');
    expect((await giveAddress(v, 'many-3@example.org', from)).transcript).toBe('limited');
    await witness();
    expect(smtp.mails.filter((mail) => mail.to.includes('many-3@example.org'))).toEqual([]);
  });

  it('per requesting address: at most 10 a day', async () => {
    const from = nextRequester();
    for (let i = 0; i < 10; i++) expect((await giveAddress(await newVisitor(), `crowd-${i}@example.org`, from)).transcript).toBe('sent');
    expect((await giveAddress(await newVisitor(), 'crowd-10@example.org', from)).transcript).toBe('limited');
    // Another requester is not held back by this one.
    expect((await giveAddress(await newVisitor(), 'crowd-10@example.org', nextRequester())).transcript).toBe('sent');
  });
});

describe('an address that asked to stop', () => {
  it('never gets another mail: no transcript, and no confirmation whoever asks', async () => {
    const v = await newVisitor();
    expect((await giveAddress(v, 'done@example.org', nextRequester())).transcript).toBe('sent');
    await waitFor(() => mailsTo('done@example.org', CONFIRMATION.en).length > 0, 10_000, 'the confirmation mail');
    expect((await press('/mail/confirm', tokenIn(mailsTo('done@example.org', CONFIRMATION.en)[0], '/mail/confirm'))).status).toBe(200);
    await talkAndEnd(v);
    await waitFor(() => mailsTo('done@example.org', TRANSCRIPT).length > 0, 10_000, 'the transcript');
    const [transcript] = mailsTo('done@example.org', TRANSCRIPT);
    const stop = tokenIn(transcript, '/mail/stop');
    expect(readable(transcript as ReceivedMail)).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);

    // The link's page asks; a mail program's one-click POST (RFC 8058) stops, without any login.
    const page = await fetch(`${server.url}/mail/stop?token=${stop}`, { headers: { 'accept-language': 'zh' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Unsubscribe');
    const oneClick = await fetch(`${server.url}/mail/stop?token=${stop}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    expect(await oneClick.text()).toContain('will send no more mail to this address');
    // Pressing it again changes nothing and says the same.
    expect((await press('/mail/stop', stop)).status).toBe(200);

    const before = smtp.mails.filter((mail) => mail.to.includes('done@example.org')).length;
    await talkAndEnd(v);
    // Asking again answers as for any address (a stranger learns nothing), and mails nothing.
    expect((await giveAddress(await newVisitor(), 'DONE@example.org', nextRequester())).transcript).toBe('sent');
    expect((await giveAddress(v, 'done@example.org', nextRequester())).transcript).toBe('none');
    await witness();
    expect(smtp.mails.filter((mail) => mail.to.map((to) => to.toLowerCase()).includes('done@example.org'))).toHaveLength(before);
  });

  it('stops from the confirmation mail too, in the mail’s language', async () => {
    const v = await newVisitor('zh');
    expect((await giveAddress(v, 'wang@example.org', nextRequester())).transcript).toBe('sent');
    await waitFor(() => mailsTo('wang@example.org', CONFIRMATION.zh).length > 0, 10_000, 'the confirmation mail');
    const [mail] = mailsTo('wang@example.org', CONFIRMATION.zh);
    const stopped = await press('/mail/stop', tokenIn(mail, '/mail/stop'), 'en');
    expect(stopped.status).toBe(200);
    const html = await stopped.text();
    expect(html).toContain('<html lang="zh">');
    expect(html).toContain('不会再向这个邮箱发送任何邮件');
    // The confirmation link still opens, but confirming an address that stopped mails it nothing.
    expect((await press('/mail/confirm', tokenIn(mail, '/mail/confirm'))).status).toBe(200);
    await talkAndEnd(v);
    await witness();
    expect(mailsTo('wang@example.org', /Subject: 您在 Shop 的对话记录/)).toEqual([]);
  });
});
