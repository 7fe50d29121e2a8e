import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, type Page, test } from '@playwright/test';
import { type Envelope, onlineAgent } from '../../support/agent';
import { axeFindings } from '../../support/axe';
import { BASE_URL } from '../../support/env';

/** The shop that embeds the widget, on another origin than the server's (its own port). */
let shop: Server;
let HOST = '';

test.beforeAll(async () => {
  // The shop's own styles are hostile on purpose: they must not reach the widget.
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Acme Shop</title>
<style>div,span{outline:3px solid red!important} button{background:red!important;width:10px!important}</style></head>
<body><h1>Acme Shop</h1><script src="${BASE_URL}/widget.js" async></script></body></html>`;
  shop = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  HOST = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
});

test.afterAll(() => new Promise<void>((resolve) => shop.close(() => resolve())));

async function openShop(page: Page, path = '/index.html'): Promise<void> {
  await page.goto(`${HOST}${path}`);
}

const launcher = (page: Page) => page.locator('parley-widget button.l');
const chat = (page: Page) => page.frameLocator('parley-widget iframe');

test('a visitor on another site chats with an agent; markup stays text; pages are reported; a reload keeps the history', async ({
  page,
  browser,
  request,
}) => {
  const agent = await onlineAgent(browser, request);
  await openShop(page);
  await expect(launcher(page)).toBeVisible();
  await launcher(page).click();

  const first = `Where is my order ${Date.now()}?`;
  await chat(page).locator('.composer textarea').fill(first);
  await chat(page).locator('.composer textarea').press('Enter');
  const mine = chat(page).locator('.row.me .bubble', { hasText: first });
  await expect(mine).toBeVisible();
  await expect(chat(page).locator('.row.me .state')).toHaveCount(0);

  const token = await agent.take(page);
  const markup = '<img src=x onerror="window.parleyPwned=1"><b>On its way</b>';
  await agent.send(token, markup);
  await expect(chat(page).locator('.row.them .bubble', { hasText: markup })).toBeVisible();
  await expect(chat(page).locator('.row.them .bubble img, .row.them .bubble b')).toHaveCount(0);

  await page.evaluate(() => {
    history.pushState({}, '', '/products/rocket');
    document.title = 'Rocket - Acme Shop';
  });
  await expect
    .poll(async () => (await agent.call<{ list: { URL: string }[] }>(`/api/talk/visits?YQToken=${token}`)).list.map((visit) => visit.URL))
    .toContain(`${HOST}/products/rocket`);

  await page.reload();
  // The window was open before the reload: it is open after it, without a click.
  await expect(launcher(page)).toHaveAttribute('aria-expanded', 'true');
  await expect(chat(page).locator('.row.me .bubble', { hasText: first })).toBeVisible();
  await expect(chat(page).locator('.row.them .bubble', { hasText: markup })).toBeVisible();
  expect(await page.evaluate(() => 'parleyPwned' in window)).toBe(false);
  await agent.close();
});

test('while the window is closed, an agent message raises the badge and blinks the title', async ({ page, browser, request }) => {
  const agent = await onlineAgent(browser, request);
  await openShop(page);
  await launcher(page).click();
  const first = `Hello ${Date.now()}`;
  await chat(page).locator('.composer textarea').fill(first);
  await chat(page).locator('.composer textarea').press('Enter');
  const token = await agent.take(page);
  await launcher(page).click();

  await agent.send(token, 'Are you still there?');
  await expect(page.locator('parley-widget .b')).toHaveText('1');
  await expect.poll(() => page.title(), { intervals: [250] }).toContain('New message');
  await launcher(page).click();
  await expect(page.locator('parley-widget .b')).toBeHidden();
  await expect.poll(() => page.title()).toBe('Acme Shop');
  await agent.close();
});

test('with no agent online, the visitor leaves a message through a validated form', async ({ page }) => {
  // Other suites may have agents online on the shared server; the widget is shown the offline settings.
  await page.route(`${BASE_URL}/api/visitor/init`, async (route) => {
    const response = await route.fetch();
    const body = (await response.json()) as Envelope<{ settings: { online: boolean } }>;
    body.data.settings.online = false;
    await route.fulfill({ response, json: body });
  });
  await openShop(page);
  await launcher(page).click();
  const form = chat(page).locator('form.letter');
  await expect(form).toBeVisible();
  await form.locator('#letter-email').fill('not-an-email');
  await form.locator('button[type=submit]').click();
  await expect(form.locator('#letter-name-error')).toHaveText('Required');
  await expect(form.locator('#letter-email-error')).toHaveText('Enter a valid email address');
  await expect(form.locator('#letter-content-error')).toHaveText('Required');

  await form.locator('#letter-name').fill('Li Lei');
  await form.locator('#letter-email').fill('lilei@example.com');
  await form.locator('#letter-content').fill('Please call me back about the rocket.');
  await form.locator('button[type=submit]').click();
  await expect(chat(page).getByText('Message received')).toBeVisible();
});

test('the widget adds one element and no styles to the page, and fills a phone screen when open', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openShop(page);
  await expect(launcher(page)).toBeVisible();
  const added = await page.evaluate(() => ({
    body: Array.from(document.body.children)
      .filter((node) => node.tagName !== 'H1' && node.tagName !== 'SCRIPT')
      .map((node) => node.tagName),
    styles: document.head.querySelectorAll('style, link[rel=stylesheet]').length,
  }));
  expect(added).toEqual({ body: ['PARLEY-WIDGET'], styles: 1 });
  await launcher(page).click();
  await expect(chat(page).locator('.head-button')).toBeVisible();
  // Polled: the window slides in.
  await expect
    .poll(async () => {
      const box = await page.locator('parley-widget .w').boundingBox();
      return box && [box.x, box.y, box.width, box.height].map(Math.round);
    })
    .toEqual([0, 0, 390, 844]);
  await chat(page).locator('.head-button').click();
  await expect(page.locator('parley-widget .w')).toBeHidden();
  await expect(launcher(page)).toBeVisible();
});

test('opened from the keyboard, the widget takes what is typed at once; Escape returns to the launcher; axe finds nothing critical', async ({
  page,
  browser,
  request,
}) => {
  const agent = await onlineAgent(browser, request);
  await openShop(page);
  await expect(launcher(page)).toBeVisible();
  await launcher(page).focus();
  await page.keyboard.press('Enter');
  // Typed straight after opening, without waiting for anything.
  await page.keyboard.type('hello there');
  await expect(chat(page).locator('.composer textarea')).toHaveValue('hello there');

  expect(await axeFindings(page, { impacts: ['critical'] })).toEqual([]);

  await page.keyboard.press('Escape');
  await expect(page.locator('parley-widget .w')).toBeHidden();
  await expect(launcher(page)).toHaveAttribute('aria-expanded', 'false');
  await expect
    .poll(() => page.evaluate(() => document.querySelector('parley-widget')?.shadowRoot?.activeElement?.classList.contains('l') ?? false))
    .toBe(true);
  await agent.close();
});
