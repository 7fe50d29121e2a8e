import { mkdirSync } from 'node:fs';
import { type APIRequestContext, type Browser, expect, type Page, test } from '@playwright/test';
import type { Envelope } from '../../support/agent';
import { apiLogin, createAgent, openConsole } from '../../support/console';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../../support/env';
import { type PrivateServer, startPrivateServer } from '../../support/private-server';
import { type Shop, startShop } from '../../support/shop';

/*
 * Agent assist and the unanswered list, as people use them: a visitor asks a question the knowledge base
 * knows, the agent sees the suggested answer, takes it with Tab, edits it and sends it, and the visitor
 * reads it; later, with the robot answering, a question it cannot answer shows in the knowledge base's
 * "Unanswered" tab and becomes a pair in one step. The robot is switched on site-wide for the second part,
 * so the suite runs on a server of its own. With SHOTS_DIR set it saves the screens in zh and en.
 */
test.describe.configure({ mode: 'serial', timeout: 300_000 });

const SHOTS = process.env.SHOTS_DIR;
let server: PrivateServer;
let shop: Shop;
let admin: Record<string, string> = {};
let adminToken = '';

async function call<T>(request: APIRequestContext, path: string, data?: unknown, headers = admin): Promise<T> {
  const response =
    data === undefined
      ? await request.get(`${server.url}${path}`, { headers })
      : await request.post(`${server.url}${path}`, { headers, data });
  const body = (await response.json()) as Envelope<T>;
  expect(body.code, `${path}: ${body.msg}`).toBe(200);
  return body.data;
}

test.beforeAll(async ({ request }) => {
  server = await startPrivateServer();
  shop = await startShop(server.url);
  adminToken = await apiLogin(request, ADMIN_USERNAME, ADMIN_PASSWORD, server.url);
  admin = { Authorization: `Bearer ${adminToken}` };
  for (const pair of [
    { questions: ['How long does shipping take?', 'When will my order arrive?'], answer: 'Shipping takes three to five working days.' },
    { questions: ['怎么退货', '如何申请退货'], answer: '在订单详情页点击“申请退货”。' },
  ]) {
    await call(request, '/api/robot/ask/doEdit', pair);
  }
});
test.afterAll(async () => {
  await shop.close();
  await server.stop();
});

const launcher = (page: Page) => page.locator('parley-widget button.l');
const chat = (page: Page) => page.frameLocator('parley-widget iframe');

async function ask(page: Page, text: string): Promise<void> {
  const box = chat(page).locator('.composer textarea');
  await box.fill(text);
  await box.press('Enter');
  await expect(chat(page).locator('.row.me .bubble', { hasText: text }).last()).toBeVisible();
}

/** A workbench of this agent in its own browser context. */
async function workbench(browser: Browser, token: string, language: 'en' | 'zh', width = 1440) {
  const context = await browser.newContext({
    baseURL: server.url,
    locale: language === 'en' ? 'en-US' : 'zh-CN',
    viewport: { width, height: width > 800 ? 900 : 844 },
  });
  const page = await context.newPage();
  await openConsole(page, '/workbench/workbench', { token, language });
  // A cold console on a busy machine can take a while to load.
  await expect(page.getByTestId('workbench')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('wb-connection')).toHaveAttribute('data-status', 'open');
  return { context, page };
}

test('the agent takes the suggested answer with Tab, edits it, and the visitor reads it; the use is counted', async ({
  browser,
  request,
}) => {
  const { username, password } = await createAgent(request, server.url);
  const token = await apiLogin(request, username, password, server.url);
  await call(request, '/api/index/state', { state: '0' }, { Authorization: `Bearer ${token}` });
  const agent = await workbench(browser, token, 'en');
  // The same agent's console in Chinese and on a phone: the suggestion reaches every console of the agent.

  const visitorContext = await browser.newContext({ locale: 'en-US' });
  const visitor = await visitorContext.newPage();
  await visitor.goto(shop.url);
  await launcher(visitor).click();
  const stamp = Date.now().toString(36);
  await ask(visitor, `Hello (${stamp})`);
  const item = agent.page.getByTestId('wb-visitor').filter({ hasText: stamp });
  await item.click();
  await expect(agent.page.getByTestId('wb-bubble').filter({ hasText: stamp })).toBeVisible();

  // The visitor words it their own way: the stored pair is suggested, with the question it matched.
  await ask(visitor, 'when will my order arrive');
  const bar = agent.page.getByTestId('wb-assist');
  await expect(bar).toContainText('Suggested answer');
  await expect(bar).toContainText('When will my order arrive?');
  await expect(bar.getByTestId('wb-assist-answer')).toHaveText('Shipping takes three to five working days.');
  await bar.getByTestId('wb-assist-insert').hover();
  await expect(agent.page.getByRole('tooltip')).toContainText('Tab does the same while the reply box is empty');

  if (SHOTS) await shootWorkbench(agent.page, stamp);

  // Tab in the empty reply box inserts the answer; the agent edits it before sending.
  const input = agent.page.getByTestId('wb-input');
  await input.focus();
  await input.press('Tab');
  await expect(input).toHaveValue('Shipping takes three to five working days.');
  await expect(input).toBeFocused();
  await input.press('End');
  await input.pressSequentially(' You will get a tracking link by email.');
  await input.press('Enter');
  const sent = 'Shipping takes three to five working days. You will get a tracking link by email.';
  await expect(chat(visitor).locator('.row.them .bubble', { hasText: sent })).toBeVisible();
  await expect(bar).toHaveCount(0);
  await expect.poll(async () => (await call<{ used: number }>(request, '/api/robot/assist')).used).toBe(1);

  await visitorContext.close();
  await agent.context.close();
});

test('a question the robot could not answer is listed as unanswered and becomes a pair in one step', async ({ browser, request }) => {
  const current = await call<Record<string, unknown>>(request, '/api/robot/high');
  await call(request, '/api/robot/high', {
    ...current,
    enabled: true,
    name: 'Ada',
    mode: 'first',
    welcome: '',
    unknownReply: 'Sorry, I do not know that yet.',
    handoverAfterUnknown: 0,
    threshold: 0.5,
  });
  const visitorContext = await browser.newContext({ locale: 'en-US' });
  const visitor = await visitorContext.newPage();
  await visitor.goto(shop.url);
  await launcher(visitor).click();
  const unknown = 'Do you deliver to the Moon base?';
  await ask(visitor, unknown);
  await expect(chat(visitor).locator('.row.them .bubble', { hasText: 'Sorry, I do not know that yet.' })).toBeVisible();
  await ask(visitor, 'How long does shipping take?');
  await expect(chat(visitor).locator('.row.them .bubble', { hasText: 'Shipping takes three to five working days.' })).toBeVisible();
  await visitorContext.close();

  const context = await browser.newContext({ baseURL: server.url, locale: 'en-US' });
  const page = await context.newPage();
  await openConsole(page, '/robot/askRobot', { token: adminToken, language: 'en' });
  await expect(page.getByTestId('robot-ask-page')).toBeVisible({ timeout: 60_000 });
  const { used } = await call<{ used: number }>(request, '/api/robot/assist');
  await expect(page.getByTestId('robot-assist-used')).toContainText(String(used));

  // Where the known question landed: the pair's "Asked" drawer.
  const row = page.getByRole('row').filter({ hasText: 'How long does shipping take?' });
  await row.getByTestId('robot-row-asked').click();
  const landed = page.getByTestId('robot-pair-questions');
  await expect(landed).toContainText('How long does shipping take?');
  await page.locator('.ant-drawer').getByRole('button', { name: 'Close' }).click();

  await page.getByTestId('robot-tab-unanswered').click();
  const unanswered = page.getByTestId('robot-unanswered-table').getByRole('row').filter({ hasText: unknown });
  await expect(unanswered).toBeVisible();
  await expect(unanswered).toContainText('1');
  await shootRobotPage(page, 'unanswered');

  await unanswered.getByTestId('robot-unanswered-add').click();
  const drawer = page.locator('.ant-drawer').filter({ hasText: 'Add a question-answer pair' });
  await expect(drawer.getByTestId('robot-question').first()).toHaveValue(unknown);
  await drawer.getByLabel('Answer', { exact: true }).fill('Not yet: we deliver on Earth only.');
  await drawer.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.locator('.ant-message-notice').filter({ hasText: 'Saved' })).toBeVisible({ timeout: 30_000 });
  await expect(drawer).toBeHidden();
  await expect(page.getByTestId('robot-unanswered-table')).not.toContainText(unknown);
  const pairs = await call<{ list: { questions: string[]; answer: string }[] }>(
    request,
    `/api/robot/ask/getList?keyword=${encodeURIComponent('Moon base')}`,
  );
  expect(pairs.list.map((pair) => [pair.questions, pair.answer])).toEqual([[[unknown], 'Not yet: we deliver on Earth only.']]);
  await shootRobotPage(page, 'pairs');
  await context.close();
});

/** The knowledge-base page on a tab, in zh and en, at 1440 and 390 px; the language is switched in the page. */
async function shootRobotPage(page: Page, tab: 'pairs' | 'unanswered'): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  for (const [language, menu] of [
    ['en', 'English'],
    ['zh', '简体中文'],
  ] as const) {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('header-avatar').click();
    await page.getByRole('menuitem', { name: menu }).click();
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: width > 800 ? 900 : 844 });
      // A change of layout may draw the page anew, on its first tab.
      if (tab === 'unanswered') await page.getByTestId('robot-tab-unanswered').click();
      else await page.getByRole('tab', { name: /^(Q&A pairs|问答)$/ }).click();
      await expect(page.getByTestId(tab === 'unanswered' ? 'robot-unanswered' : 'robot-ask-page')).toBeVisible();
      await page.screenshot({ path: `${SHOTS}/robot-${tab}-${language}-${width}.png`, fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.getByTestId('header-avatar').click();
  await page.getByRole('menuitem', { name: 'English' }).click();
  if (tab === 'unanswered') await page.getByTestId('robot-tab-unanswered').click();
}

/**
 * The workbench with a suggestion on screen, in en and zh at 1440 and 390 px: the language is switched in
 * the page (the avatar menu), so the suggestion that arrived stays.
 */
async function shootWorkbench(page: Page, stamp: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  const shoot = async (language: string, width: number) => {
    await page.setViewportSize({ width, height: width > 800 ? 900 : 844 });
    // On a phone the list comes first: the conversation opens on a tap.
    if (width < 800 && (await page.getByTestId('wb-assist').count()) === 0)
      await page.getByTestId('wb-visitor').filter({ hasText: stamp }).click();
    await expect(page.getByTestId('wb-assist')).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/workbench-assist-${language}-${width}.png` });
  };
  await shoot('en', 1440);
  await page.getByTestId('header-avatar').click();
  await page.getByRole('menuitem', { name: '简体中文' }).click();
  await expect(page.getByTestId('wb-assist')).toContainText('建议答案');
  await shoot('zh', 1440);
  await shoot('zh', 390);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.getByTestId('header-avatar').click();
  await page.getByRole('menuitem', { name: 'English' }).click();
  await expect(page.getByTestId('wb-assist')).toContainText('Suggested answer');
  await shoot('en', 390);
  await page.setViewportSize({ width: 1440, height: 900 });
  await expect(page.getByTestId('wb-input')).toBeVisible();
}
