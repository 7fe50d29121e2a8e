import type { SettingsOf, SettingsPage } from '@parley/protocol';
import { inkOn } from '@parley/protocol/contrast';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { type Envelope, onlineAgent } from '../../support/agent';
import { axeFindings } from '../../support/axe';
import { apiLogin } from '../../support/console';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../../support/env';
import { type PrivateServer, startPrivateServer } from '../../support/private-server';
import { type Shop, startShop } from '../../support/shop';

/*
 * Settings are the whole site's, and a blocked region or closed hours would stop every other suite's
 * visitors: these tests change them on a server of their own, one test after another, and put every
 * page they change back as it was.
 */
test.describe.configure({ mode: 'serial' });

let server: PrivateServer;
let BASE_URL = '';
let shop: Shop;
let adminHeaders: Record<string, string> = {};
const saved = new Map<SettingsPage, unknown>();

test.beforeAll(async ({ request }) => {
  server = await startPrivateServer();
  BASE_URL = server.url;
  shop = await startShop(BASE_URL);
  adminHeaders = { Authorization: `Bearer ${await apiLogin(request, ADMIN_USERNAME, ADMIN_PASSWORD, BASE_URL)}` };
});
test.afterAll(async () => {
  await shop.close();
  await server.stop();
});

test.afterEach(async ({ request }) => {
  for (const [page, value] of saved) await request.post(`${BASE_URL}/api/settings/${page}`, { headers: adminHeaders, data: value });
  saved.clear();
});

/** Saves a settings page through the API with `change` applied, remembering how it was. */
async function changeSettings<P extends SettingsPage>(
  request: APIRequestContext,
  page: P,
  change: (value: SettingsOf<P>) => SettingsOf<P>,
) {
  const current = (await (await request.get(`${BASE_URL}/api/settings/${page}`, { headers: adminHeaders })).json()) as Envelope<
    SettingsOf<P>
  >;
  if (!saved.has(page)) saved.set(page, current.data);
  const response = await request.post(`${BASE_URL}/api/settings/${page}`, {
    headers: adminHeaders,
    data: change(structuredClone(current.data)),
  });
  const body = (await response.json()) as Envelope<SettingsOf<P>>;
  expect(body.code, body.msg).toBe(200);
}

const launcher = (page: Page) => page.locator('parley-widget button.l');
const chat = (page: Page) => page.frameLocator('parley-widget iframe');
const background = (page: Page) => launcher(page).evaluate((node) => getComputedStyle(node).backgroundColor);
/** How the loader draws a chosen colour under white text: darkened just enough to read at 4.5:1. */
const drawn = (hex: string) => {
  const ink = inkOn(hex);
  return `rgb(${[1, 3, 5].map((at) => Number.parseInt(ink.slice(at, at + 2), 16)).join(', ')})`;
};

test('the launcher and the float navigation are drawn as the settings say', async ({ page, request }) => {
  await changeSettings(request, 'takeIcon', (value) => ({
    ...value,
    pc: { ...value.pc, style: 'bar', position: 'left', color: '#d4380d', text: 'Ask us', side: 30, bottom: 40 },
  }));
  await changeSettings(request, 'floatNavigation', (value) => ({
    ...value,
    enabled: true,
    side: 'right',
    color: '#389e0d',
    items: [
      { type: 'chat', title: 'Chat', value: '' },
      { type: 'phone', title: 'Call us', value: '+86 400 123 4567' },
      { type: 'link', title: 'Help centre', value: 'https://help.example.com/' },
      { type: 'wechat', title: 'WeChat', value: 'shop_service' },
      { type: 'top', title: 'Top', value: '' },
    ],
  }));
  await page.goto(shop.url);
  await expect(launcher(page)).toBeVisible();
  await expect(launcher(page).locator('.t')).toHaveText('Ask us');
  expect(await background(page)).toBe(drawn('#d4380d'));
  // Polled: the launcher grows in.
  await expect
    .poll(async () => {
      const box = await launcher(page).boundingBox();
      return box && [Math.round(box.x), Math.round(900 - box.y - box.height)];
    })
    .toEqual([30, 40]);

  const nav = page.locator('parley-widget nav');
  await expect(nav.getByRole('link', { name: 'Call us' })).toHaveAttribute('href', 'tel:+864001234567');
  await expect(nav.getByRole('link', { name: 'Help centre' })).toHaveAttribute('href', 'https://help.example.com/');
  // A WeChat ID is shown as text in its pop-up, never as markup or an image address.
  const weChat = nav.getByRole('button', { name: 'WeChat' });
  await weChat.click();
  await expect(weChat).toHaveAttribute('aria-expanded', 'true');
  await expect(weChat.locator('.fq')).toHaveText('shop_service');
  await expect(weChat.locator('.fq img')).toHaveCount(0);
  await nav.getByRole('button', { name: 'Chat', exact: true }).click();
  await expect(page.locator('parley-widget .w')).toBeVisible();
});

test('a phone gets the mobile launcher; a launcher set not to show stays hidden', async ({ page, request }) => {
  await changeSettings(request, 'takeIcon', (value) => ({
    pc: { ...value.pc, show: false },
    mobile: { ...value.mobile, style: 'bar', text: 'Phone chat', color: '#13c2c2' },
  }));
  await changeSettings(request, 'floatNavigation', (value) => ({
    ...value,
    enabled: true,
    items: [{ type: 'top', title: 'Top', value: '' }],
  }));
  await page.goto(shop.url);
  // The float navigation shows that the loader has its settings; the pc launcher is not to be seen.
  await expect(page.locator('parley-widget nav').getByRole('button', { name: 'Top' })).toBeVisible();
  await expect(launcher(page)).toBeHidden();

  await page.setViewportSize({ width: 390, height: 844 });
  await expect(launcher(page)).toBeVisible();
  await expect(launcher(page).locator('.t')).toHaveText('Phone chat');
  await expect.poll(() => background(page)).toBe(drawn('#13c2c2'));
});

test('the invitation comes after its delay and opens the chat', async ({ page, request }) => {
  await changeSettings(request, 'invitationBox', (value) => ({
    ...value,
    pc: {
      ...value.pc,
      enabled: true,
      delaySeconds: 2,
      text: 'Rockets are half price today',
      acceptText: 'Tell me more',
      laterText: 'Not now',
    },
  }));
  await page.goto(shop.url);
  await expect(launcher(page)).toBeVisible();
  const invitation = page.locator('parley-widget .i');
  await expect(invitation).toBeHidden();
  await expect(invitation).toContainText('Rockets are half price today');
  // The invitation open on the shop: nothing critical or serious for axe, its button's contrast included.
  expect(await axeFindings(page, { include: 'parley-widget' })).toEqual([]);
  await invitation.getByRole('button', { name: 'Tell me more' }).click();
  await expect(invitation).toBeHidden();
  await expect(page.locator('parley-widget .w')).toBeVisible();
});

test('the invitation’s days are the site’s: a visitor whose own clock is already on another day is invited', async ({
  browser,
  request,
}) => {
  // Kiritimati (UTC+14) and Pago Pago (UTC-11) are 25 hours apart: never on the same weekday.
  const siteZone = 'Pacific/Kiritimati';
  const siteDay = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(
    new Intl.DateTimeFormat('en-US', { timeZone: siteZone, weekday: 'short' }).format(new Date()),
  );
  await changeSettings(request, 'softwareSetting', (value) => ({ ...value, timezone: siteZone }));
  await changeSettings(request, 'invitationBox', (value) => ({
    ...value,
    pc: { ...value.pc, enabled: true, delaySeconds: 1, text: 'Open on the site’s day', days: [siteDay] },
  }));
  const context = await browser.newContext({ timezoneId: 'Pacific/Pago_Pago' });
  const page = await context.newPage();
  await page.goto(shop.url);
  await expect(launcher(page)).toBeVisible();
  expect(await page.evaluate(() => new Date().getDay())).not.toBe(siteDay);
  await expect(page.locator('parley-widget .i')).toContainText('Open on the site’s day');
  await context.close();
});

test('a change of settings reaches an open page at once (2020), without a reload', async ({ page, request }) => {
  await page.goto(shop.url);
  await expect(launcher(page)).toBeVisible();
  expect(await background(page)).toBe(drawn('#1677ff'));
  await launcher(page).click();
  await expect(chat(page).locator('.head-title')).toBeVisible();

  await changeSettings(request, 'takeIcon', (value) => ({ ...value, pc: { ...value.pc, color: '#722ed1', position: 'left' } }));
  await changeSettings(request, 'windowStyle', (value) => ({ ...value, title: 'Rocket support' }));
  await expect.poll(() => background(page)).toBe(drawn('#722ed1'));
  await expect(chat(page).locator('.head-title')).toHaveText('Rocket support');
  await expect.poll(async () => (await launcher(page).boundingBox())?.x ?? -1).toBeLessThan(100);
});

test('the pre-chat form comes before the first message', async ({ page, browser, request }) => {
  const agent = await onlineAgent(browser, request, BASE_URL);
  await changeSettings(request, 'windowSetting', (value) => ({
    ...value,
    preChat: { enabled: true, fields: ['name', 'email'], required: ['name'] },
  }));
  await page.goto(shop.url);
  await launcher(page).click();
  const form = chat(page).locator('form.letter');
  await expect(form).toContainText('Before we start');
  await expect(chat(page).locator('.composer textarea')).toHaveCount(0);
  await form.locator('button[type=submit]').click();
  await expect(form.locator('#letter-name-error')).toBeVisible();
  await form.locator('#letter-name').fill('Li Lei');
  await form.locator('#letter-email').fill('lilei@example.com');
  await form.locator('button[type=submit]').click();
  await expect(chat(page).locator('.composer textarea')).toBeVisible();
  // The answers are kept with the visitor, where agents look them up; no leave-message is made of them.
  const found = (await (
    await request.get(`${BASE_URL}/api/user/getList?keyword=lilei@example.com`, { headers: adminHeaders })
  ).json()) as Envelope<{
    list: { name: string; email: string }[];
  }>;
  expect(found.data.list).toEqual([expect.objectContaining({ name: 'Li Lei', email: 'lilei@example.com' })]);
  const letters = (await (
    await request.get(`${BASE_URL}/api/letter/getList?keyword=lilei@example.com`, { headers: adminHeaders })
  ).json()) as Envelope<{
    total: number;
  }>;
  expect(letters.data.total).toBe(0);
  await agent.close();
});

test('outside the working hours the widget offers the leave-a-message form with the off-hours text', async ({ page, browser, request }) => {
  const agent = await onlineAgent(browser, request, BASE_URL);
  await changeSettings(request, 'windowSetting', (value) => ({
    ...value,
    workHours: { ...value.workHours, enabled: true, days: [], offlineText: 'We are closed on weekends.' },
  }));
  await page.goto(shop.url);
  await launcher(page).click();
  const form = chat(page).locator('form.letter');
  await expect(form).toContainText('We are closed on weekends.');
  await expect(form.locator('#letter-content')).toBeVisible();
  await agent.close();
});

test('a blocked region sees its text and no composer', async ({ browser, request }) => {
  // A visitor from Shenzhen (the address a proxy forwards), and a rule on its province, Guangdong.
  await changeSettings(request, 'region', () => ({
    rules: [{ codes: ['440000'], action: 'block', text: 'Chat is not offered in your region.' }],
  }));
  const context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': '120.24.78.68' } });
  const page = await context.newPage();
  await page.goto(shop.url);
  await launcher(page).click();
  await expect(chat(page).getByText('Chat is not offered in your region.')).toBeVisible();
  await expect(chat(page).locator('.composer textarea')).toHaveCount(0);
  await expect(chat(page).locator('form.letter')).toHaveCount(0);
  await context.close();
});

test('a region blocked while its visitor chats: the open window turns to the region’s text, and the server refuses what is still sent', async ({
  browser,
  request,
}) => {
  const agent = await onlineAgent(browser, request, BASE_URL);
  const context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': '120.24.78.68' } });
  const page = await context.newPage();
  await page.goto(shop.url);
  await launcher(page).click();
  const composer = chat(page).locator('.composer textarea');
  await composer.fill('Hello from Shenzhen');
  await composer.press('Enter');
  await expect(chat(page).getByText('Hello from Shenzhen')).toBeVisible();
  const token = await chat(page)
    .locator('body')
    .evaluate(() => Object.entries(localStorage).find(([key]) => key.startsWith('parley:yq:'))?.[1] ?? '');
  expect(token).not.toBe('');

  await changeSettings(request, 'region', () => ({
    rules: [{ codes: ['440000'], action: 'block', text: 'Chat is not offered in your region.' }],
  }));
  await expect(chat(page).getByText('Chat is not offered in your region.')).toBeVisible();
  await expect(composer).toHaveCount(0);
  const refused = await context.request.post(`${BASE_URL}/api/visitor/message`, {
    data: { YQToken: token, msg: 'sent anyway', onlyID: 'e2e-blocked-1' },
    headers: { 'accept-language': 'en' },
  });
  expect(refused.status()).toBe(403);
  expect(((await refused.json()) as Envelope<null>).msg).toBe('Sorry, online chat is not available in your region');
  await context.close();
  await agent.close();
});
