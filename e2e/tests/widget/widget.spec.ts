import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type APIRequestContext, type Browser, expect, type Page, test } from '@playwright/test';
import { apiLogin, createAgent } from '../../support/console';
import { BASE_URL } from '../../support/env';

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

interface VisitorRow {
  YQToken: string;
  state: string;
}

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

/** An agent that is online with a connected socket, as routing requires, held open in a page of its own. */
async function onlineAgent(browser: Browser, request: APIRequestContext) {
  const { username, password } = await createAgent(request);
  const token = await apiLogin(request, username, password);
  const headers = { Authorization: `Bearer ${token}` };
  const index = (await (await request.get(`${BASE_URL}/api/index`, { headers })).json()) as Envelope<{ info: { uuid: string } }>;
  const context = await browser.newContext();
  const socketPage = await context.newPage();
  await socketPage.goto(`${BASE_URL}/api/publicKey`);
  await socketPage.evaluate(
    ([url, uuid]) =>
      new Promise<void>((resolve) => {
        const socket = new WebSocket(url);
        socket.onmessage = (event) => {
          if (event.data === 'Y') return;
          if (JSON.parse(event.data).code === '0000') {
            socket.send(JSON.stringify({ code: '5000', type: 'service', uuid }));
            setInterval(() => socket.send('Y'), 5000);
            resolve();
          }
        };
      }),
    [`${BASE_URL.replace('http', 'ws')}/ws/agent?token=${token}`, index.data.info.uuid] as const,
  );
  await request.post(`${BASE_URL}/api/index/state`, { headers, data: { state: '0' } });
  const call = async <T>(path: string, data?: unknown): Promise<T> => {
    const response =
      data === undefined
        ? await request.get(`${BASE_URL}${path}`, { headers })
        : await request.post(`${BASE_URL}${path}`, { headers, data });
    const body = (await response.json()) as Envelope<T>;
    if (body.code !== 200) throw new Error(`${path}: ${body.code} ${body.msg}`);
    return body.data;
  };
  return {
    call,
    /** The public id of this page's visitor (the loader keeps its credential on the shop's side too), accepted when it waits. */
    async take(page: Page): Promise<string> {
      let token: string | null = null;
      await expect
        .poll(async () => {
          token = await page.evaluate(() => localStorage.getItem('parley-yq'));
          return token;
        })
        .toBeTruthy();
      if (!token) throw new Error('no visitor token');
      // The page keeps the visitor's credential; agents know the visitor by its public id, which its
      // messages carry.
      const credential: string = token;
      let YQToken: string | undefined;
      await expect
        .poll(async () => {
          YQToken = (await call<{ list: { YQToken: string }[] }>(`/api/visitor/messages?YQToken=${credential}`)).list[0]?.YQToken;
          return YQToken;
        })
        .toBeTruthy();
      if (!YQToken) throw new Error('no message of the visitor');
      const row = (await call<{ list: VisitorRow[] }>('/api/talk/userList')).list.find((visitor) => visitor.YQToken === YQToken);
      if (row?.state === 'wait') await call('/api/talk/accept', { YQToken });
      return YQToken;
    },
    send: (YQToken: string, msg: string) =>
      call('/api/talk/send', { YQToken, msg, onlyID: `e2e-${Date.now()}-${Math.random().toString(36).slice(2)}` }),
    close: () => context.close(),
  };
}

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
  await launcher(page).click();
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
