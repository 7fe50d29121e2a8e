import { mkdirSync } from 'node:fs';
import { type APIRequestContext, type Browser, expect, type Page, test } from '@playwright/test';
import type { Envelope } from '../../support/agent';
import { apiLogin, createAgent, openConsole } from '../../support/console';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../../support/env';
import { type PrivateServer, startPrivateServer } from '../../support/private-server';
import { type Shop, startShop } from '../../support/shop';

/*
 * The smart robot takes every new conversation in mode `first`: a site-wide change, so these tests run
 * on a server of their own, where no other suite's visitor meets the robot.
 */
test.describe.configure({ mode: 'serial' });

const SHOTS = '/tmp/shots-robotflow';
let server: PrivateServer;
let shop: Shop;
let admin: Record<string, string> = {};

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
  admin = { Authorization: `Bearer ${await apiLogin(request, ADMIN_USERNAME, ADMIN_PASSWORD, server.url)}` };
  for (const pair of [
    { questions: ['How long does shipping take?', 'When will my order arrive?'], answer: 'Shipping takes three to five working days.' },
    { questions: ['How do I return an item?'], answer: 'Open your order and choose "Return item".' },
    { questions: ['运费是多少', '怎么收运费'], answer: '订单满 99 元包邮，否则运费 10 元。' },
    { questions: ['怎么退货'], answer: '在订单详情页点击“申请退货”。' },
  ]) {
    await call(request, '/api/robot/ask/doEdit', pair);
  }
  const current = await call<Record<string, unknown>>(request, '/api/robot/high');
  await call(request, '/api/robot/high', {
    ...current,
    enabled: true,
    name: 'Ada',
    mode: 'first',
    welcome: 'Hi, I am Ada, the shop assistant. Ask me anything!',
    unknownReply: 'Sorry, I do not know that yet.',
    handoverKeywords: ['human', '人工'],
    handoverAfterUnknown: 3,
    threshold: 0.5,
  });
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

/** A fresh agent (built-in Agent role) with the workbench of the private server open in English. */
async function openWorkbench(browser: Browser, request: APIRequestContext) {
  const { username, password } = await createAgent(request, server.url);
  const token = await apiLogin(request, username, password, server.url);
  await call(request, '/api/index/state', { state: '0' }, { Authorization: `Bearer ${token}` });
  const context = await browser.newContext({ baseURL: server.url, locale: 'en-US' });
  const page = await context.newPage();
  await openConsole(page, '/workbench/workbench', { token, language: 'en' });
  await expect(page.getByTestId('workbench')).toBeVisible();
  await expect(page.getByTestId('wb-connection')).toHaveAttribute('data-status', 'open');
  return { context, page, username };
}

test('a visitor on a host page gets the robot’s answer, asks for a person, and the agent reads the whole conversation', async ({
  browser,
  request,
}) => {
  const agent = await openWorkbench(browser, request);
  const visitorContext = await browser.newContext({ locale: 'en-US' });
  const visitor = await visitorContext.newPage();
  await visitor.goto(shop.url);
  await launcher(visitor).click();

  const question = `When will my order arrive? (#${Date.now()})`;
  await ask(visitor, question);
  await expect(chat(visitor).locator('.row.them .bubble', { hasText: 'Hi, I am Ada' })).toBeVisible();
  await expect(chat(visitor).locator('.row.them .bubble', { hasText: 'Shipping takes three to five working days.' })).toBeVisible();
  await expect(chat(visitor).locator('.row.them .who', { hasText: 'Ada' }).first()).toBeVisible();
  await expect(chat(visitor).locator('.head-status')).toHaveText('Ada is here to help');

  // The workbench lists the visitor live while the robot answers.
  const item = agent.page.getByTestId('wb-visitor').filter({ hasText: 'Shipping takes' });
  await expect(item).toBeVisible();

  await chat(visitor).getByRole('button', { name: 'Talk to a person' }).click();
  await expect(chat(visitor).locator('.head-status')).toHaveText(`Chatting with ${agent.username}`);
  await expect(chat(visitor).getByRole('button', { name: 'Talk to a person' })).toHaveCount(0);

  // The agent opens the conversation and reads the robot's part above the visitor's question.
  await agent.page.getByTestId('wb-visitor').filter({ hasText: 'Connecting you to a person' }).click();
  for (const text of ['Hi, I am Ada', question, 'Shipping takes three to five working days.']) {
    await expect(agent.page.getByTestId('wb-bubble').filter({ hasText: text }).first()).toBeVisible();
  }
  await expect(agent.page.getByTestId('wb-conv-state')).toHaveText('In conversation');
  const reply = 'Hello, I am a person. Your parcel left today.';
  await agent.page.getByTestId('wb-input').fill(reply);
  await agent.page.getByTestId('wb-input').press('Enter');
  await expect(chat(visitor).locator('.row.them .bubble', { hasText: reply })).toBeVisible();
  await expect(chat(visitor).locator('.row.them .who', { hasText: agent.username })).toBeVisible();

  await visitorContext.close();
  await agent.context.close();
});

for (const { lang, locale, unknown } of [
  { lang: 'en', locale: 'en-US', unknown: 'Is shipping to Mars possible with rockets?' },
  { lang: 'zh', locale: 'zh-CN', unknown: '我想咨询一下发票抬头和运费险的问题' },
]) {
  for (const width of [1440, 390]) {
    test(`the widget in robot state, ${lang} at ${width} px: the answer, suggestions and the button to a person`, async ({ browser }) => {
      const context = await browser.newContext({ locale, viewport: { width, height: width > 800 ? 900 : 844 } });
      const page = await context.newPage();
      await page.goto(shop.url);
      await launcher(page).click();
      await ask(page, lang === 'en' ? 'How long does shipping take?' : '运费是多少？');
      await expect(chat(page).locator('.row.them .bubble', { hasText: lang === 'en' ? 'three to five' : '包邮' })).toBeVisible();
      await ask(page, unknown);
      const chips = chat(page).locator('.chips .chip');
      await expect(chips.first()).toBeVisible();
      await expect(chat(page).locator('.robot-bar button')).toHaveText(lang === 'en' ? 'Talk to a person' : '转人工');
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}/robot-${lang}-${width}.png` });

      // A chip asks its question as if typed, and the robot answers it.
      const suggested = (await chips.first().textContent()) ?? '';
      const answers = await chat(page).locator('.row.them .bubble').count();
      const asked = chat(page).locator('.row.me .bubble');
      const questions = await asked.count();
      await chips.first().click();
      await expect(asked).toHaveCount(questions + 1);
      await expect(asked.last()).toHaveText(suggested);
      await expect(chat(page).locator('.row.them .bubble')).toHaveCount(answers + 1);
      await context.close();
    });
  }
}
