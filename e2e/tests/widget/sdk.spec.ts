import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, type Page, test } from '@playwright/test';
import { onlineAgent } from '../../support/agent';
import { ADMIN_PASSWORD, ADMIN_USERNAME, BASE_URL } from '../../support/env';

/**
 * CONTRACT §13 in a browser: a members' site on another origin than the server's, whose own server
 * computes the identity hash (as examples/identity does) and whose script calls Parley(…) before the
 * loader has arrived.
 */
let site: Server;
let HOST = '';
let secret = '';
let admin = '';

async function api<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${BASE_URL}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await response.json()) as { code: number; msg: string; data: T };
  if (envelope.code !== 200) throw new Error(`${path}: ${envelope.code} ${envelope.msg}`);
  return envelope.data;
}

const hashOf = (id: string) => createHmac('sha256', secret).update(id).digest('hex');

/** The page: ?user= signs that user in (a wrong hash with &bad=1), ?hide=1 and ?open=1 are queued before the loader. */
function pageFor(url: URL): string {
  const user = url.searchParams.get('user');
  const calls: string[] = [];
  if (url.searchParams.get('hide')) calls.push(`Parley('hide');`);
  if (url.searchParams.get('open')) calls.push(`Parley('open');`);
  if (user) {
    const hash = url.searchParams.get('bad') ? hashOf(`${user}-not`) : hashOf(user);
    calls.push(`Parley('identify', ${JSON.stringify({ id: user, hash, name: `Member ${user}`, attributes: { plan: 'gold' } })});`);
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Members</title>
<script>window.Parley=window.Parley||function(){(Parley.q=Parley.q||[]).push(arguments)}</script>
<script>
window.seen = [];
for (const name of ['ready', 'open', 'close', 'message', 'unread']) {
  Parley('on', name, (data) => seen.push(name === 'message' ? name + ':' + data.msg : name === 'unread' ? name + ':' + data : name));
}
${calls.join('\n')}
</script></head>
<body><h1>Members</h1><button id="help" type="button" onclick="Parley('open')">Help</button>
<script src="${BASE_URL}/widget.js" async></script></body></html>`;
}

// Several browser contexts a test, each loading the site and the chat window: more than the default minute on a busy machine.
test.setTimeout(300_000);

test.beforeAll(async () => {
  const login = await fetch(`${BASE_URL}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: ADMIN_USERNAME, password: ADMIN_PASSWORD }),
  });
  admin = ((await login.json()) as { data: { token: string } }).data.token;
  secret = (await api<{ identitySecret: string }>('/api/access/identitySecret')).identitySecret;
  site = createServer((req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageFor(new URL(req.url ?? '/', 'http://x'))),
  );
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  HOST = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

test.afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));

const launcher = (page: Page) => page.locator('parley-widget button.l');
const win = (page: Page) => page.locator('parley-widget .w');
const chat = (page: Page) => page.frameLocator('parley-widget iframe');
const seen = (page: Page) => page.evaluate(() => (window as unknown as { seen: string[] }).seen);
const user = () => `member-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

/** Waits until the server knows the member (the chat window has identified the page's visitor). */
async function identified(member: string) {
  await expect
    .poll(async () => (await api<{ list: { userId?: string }[] }>('/api/talk/userList')).list.some((v) => v.userId === member))
    .toBe(true);
}

async function send(page: Page, text: string) {
  await chat(page).locator('.composer textarea').fill(text);
  await chat(page).locator('.composer textarea').press('Enter');
}

test('calls queued before the loader run in order; open, close, toggle, show and hide; events reach the handlers', async ({ page }) => {
  await page.goto(`${HOST}/?hide=1&open=1`);
  // Queued: hidden launcher, open window.
  await expect(win(page)).toHaveClass(/\bon\b/);
  await expect.poll(() => seen(page)).toEqual(['open', 'ready']);
  await expect(launcher(page)).toBeHidden();
  expect(await page.evaluate(() => Object.keys(window).filter((key) => /parley/i.test(key)))).toEqual(['Parley']);

  await page.evaluate(() => window.Parley('close'));
  await expect(win(page)).not.toHaveClass(/\bon\b/);
  await page.evaluate(() => window.Parley('show'));
  await expect(launcher(page)).toBeVisible();
  await page.evaluate(() => window.Parley('toggle'));
  await expect(win(page)).toHaveClass(/\bon\b/);
  await page.evaluate(() => window.Parley('toggle'));
  await expect(win(page)).not.toHaveClass(/\bon\b/);
  await page.evaluate(() => window.Parley('hide'));
  await expect(launcher(page)).toBeHidden();
  // The site's own button opens the window with the launcher hidden.
  await page.locator('#help').click();
  await expect(win(page)).toHaveClass(/\bon\b/);
  expect(await seen(page)).toEqual(['open', 'ready', 'close', 'open', 'close', 'open']);
  // A ready handler added late is called at once.
  expect(await page.evaluate(() => new Promise((resolve) => window.Parley('on', 'ready', () => resolve('late'))))).toBe('late');
});

test('an agent answer reaches the message and unread handlers', async ({ page, browser, request }) => {
  const agent = await onlineAgent(browser, request);
  await page.goto(`${HOST}/?open=1`);
  await send(page, `Question ${Date.now()}`);
  const visitor = await agent.take(page);
  await page.evaluate(() => window.Parley('close'));
  const answer = `Answer ${Date.now()}`;
  await agent.send(visitor, answer);
  await expect.poll(() => seen(page)).toContain(`message:${answer}`);
  await expect.poll(() => seen(page)).toContain('unread:1');
  await agent.close();
});

test('identify: one history on two browsers; a wrong hash is refused; reset starts anonymous', async ({ browser, request }) => {
  // An agent online: the window offers the chat, not the leave-a-message form.
  const agent = await onlineAgent(browser, request);
  const member = user();
  const laptop = await (await browser.newContext()).newPage();
  await laptop.goto(`${HOST}/?open=1&user=${member}`);
  await expect(chat(laptop).locator('.composer textarea')).toBeVisible();
  const first = `From the laptop ${Date.now()}`;
  await send(laptop, first);
  await expect(chat(laptop).locator('.row.me .bubble', { hasText: first })).toBeVisible();

  const phone = await (await browser.newContext()).newPage();
  await phone.goto(`${HOST}/?open=1&user=${member}`);
  await expect(chat(phone).locator('.row.me .bubble', { hasText: first })).toBeVisible();
  const second = `From the phone ${Date.now()}`;
  await send(phone, second);
  await expect(chat(phone).locator('.row.me .bubble', { hasText: second })).toBeVisible();
  // The laptop's history has it too (the visitor's own messages reach agents live, not the visitor's other browsers).
  await laptop.reload();
  await expect(chat(laptop).locator('.row.me .bubble', { hasText: second })).toBeVisible();
  const list = await api<{ list: { userId?: string; name?: string; attributes?: Record<string, unknown> }[] }>('/api/talk/userList');
  expect(list.list.filter((v) => v.userId === member)).toEqual([
    expect.objectContaining({ name: `Member ${member}`, attributes: { plan: 'gold' } }),
  ]);

  // A forged hash: the browser stays anonymous and sees nothing of the member.
  const forger = await (await browser.newContext()).newPage();
  await forger.goto(`${HOST}/?open=1&user=${member}&bad=1`);
  await expect(chat(forger).locator('.composer textarea')).toBeVisible();
  await expect(chat(forger).locator('.row.me .bubble', { hasText: first })).toHaveCount(0);

  await Promise.all([phone.context().close(), forger.context().close()]);

  // Reset at logout: the laptop starts over as a new anonymous visitor.
  await laptop.evaluate(() => window.Parley('reset'));
  await expect(chat(laptop).locator('.row.me .bubble', { hasText: first })).toHaveCount(0);
  // The site's next page, signed out, no longer identifies: still the new anonymous visitor.
  await laptop.goto(`${HOST}/?open=1`);
  await expect(chat(laptop).locator('.composer textarea')).toBeVisible();
  await expect(chat(laptop).locator('.row.me .bubble', { hasText: first })).toHaveCount(0);
  await Promise.all([laptop.context().close(), agent.close()]);
});

test('an anonymous history merges into the member it identifies as', async ({ browser, request }) => {
  const agent = await onlineAgent(browser, request);
  const member = user();
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${HOST}/?open=1`);
  const before = `Before signing in ${Date.now()}`;
  await send(page, before);
  await expect(chat(page).locator('.row.me .bubble', { hasText: before })).toBeVisible();
  await expect(chat(page).locator('.row.me .state')).toHaveCount(0);
  // The site signs the visitor in without a reload.
  const hash = hashOf(member);
  await page.evaluate(([id, h]) => window.Parley('identify', { id, hash: h }), [member, hash] as const);
  await identified(member);
  const other = await (await browser.newContext()).newPage();
  await other.goto(`${HOST}/?open=1&user=${member}`);
  await expect(chat(other).locator('.row.me .bubble', { hasText: before })).toBeVisible();
  await Promise.all([page.context().close(), other.context().close(), agent.close()]);
});

test('requireIdentity: an anonymous visitor is told to sign in; a member chats', async ({ browser, request }) => {
  const agent = await onlineAgent(browser, request);
  const page0 = await api<Record<string, unknown>>('/api/settings/appSetting');
  await api('/api/settings/appSetting', { ...page0, requireIdentity: true });
  try {
    const anonymous = await (await browser.newContext({ locale: 'en-US' })).newPage();
    await anonymous.goto(`${HOST}/?open=1`);
    await send(anonymous, 'Let me in');
    await expect(chat(anonymous).getByText('Please sign in to this site to chat with us')).toBeVisible();
    const member = await (await browser.newContext()).newPage();
    const id = user();
    await member.goto(`${HOST}/?open=1&user=${id}`);
    await identified(id);
    const text = `Member question ${Date.now()}`;
    await send(member, text);
    await expect(chat(member).locator('.row.me .bubble', { hasText: text })).toBeVisible();
    await expect(chat(member).locator('.row.me .state')).toHaveCount(0);
    await Promise.all([anonymous.context().close(), member.context().close(), agent.close()]);
  } finally {
    await api('/api/settings/appSetting', { ...page0, requireIdentity: false });
  }
});

declare global {
  interface Window {
    Parley: (command: string, ...args: unknown[]) => void;
  }
}
