import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type APIRequestContext, type Browser, type BrowserContext, expect, type Page, test } from '@playwright/test';
import { apiLogin, clickMenuItem, createAgent, openConsole } from '../../support/console';
import { BASE_URL } from '../../support/env';

/*
 * A visitor on a shop of another origin chats with an agent in the console's workbench, each in a
 * browser context of their own. Routing hands a visitor to any connected agent that is online, so the
 * tests of this file run one after another and each agent leaves when its test ends.
 */
// Each test walks through a whole conversation in two browsers: more than the default per-test budget.
test.describe.configure({ mode: 'serial', timeout: 180_000 });
test.use({ locale: 'en-US' });

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

/** The shop: a real server on its own port (another origin than the chat server) whose pages embed widget.js. */
let shop: Server;
let SHOP = '';

const PAGES: Record<string, string> = { '/': 'Acme Shop', '/products/rocket': 'Rocket - Acme Shop', '/checkout': 'Checkout - Acme Shop' };

test.beforeAll(async () => {
  shop = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const title = PAGES[path];
    if (!title) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>
<body><h1>${title}</h1><nav><a id="to-rocket" href="/products/rocket">Rocket</a> <a id="to-home" href="/">Home</a></nav>
<script src="${BASE_URL}/widget.js" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => shop.listen(0, 'localhost', resolve));
  SHOP = `http://localhost:${(shop.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => shop.close(resolve));
});

/** A 1×1 PNG and the smallest PDF header the server's type sniffing accepts. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PDF = '%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n';

const launcher = (page: Page) => page.locator('parley-widget button.l');
const widget = (page: Page) => page.frameLocator('parley-widget iframe');

/** Every alert, confirm or prompt a page opens: markup that ran would show up here. */
function watchDialogs(page: Page): string[] {
  const seen: string[] = [];
  page.on('dialog', (dialog) => {
    seen.push(dialog.message());
    void dialog.dismiss();
  });
  return seen;
}

async function api<T>(request: APIRequestContext, token: string, path: string, data?: unknown): Promise<T> {
  const headers = { Authorization: `Bearer ${token}` };
  const response =
    data === undefined ? await request.get(`${BASE_URL}${path}`, { headers }) : await request.post(`${BASE_URL}${path}`, { headers, data });
  const body = (await response.json()) as Envelope<T>;
  if (body.code !== 200) throw new Error(`${path}: ${body.code} ${body.msg}`);
  return body.data;
}

interface AgentSession {
  context: BrowserContext;
  page: Page;
  token: string;
  dialogs: string[];
}

/** A fresh agent (built-in Agent role) with the workbench open in English and its socket connected. */
async function openWorkbench(browser: Browser, request: APIRequestContext, state: '0' | '1' = '0'): Promise<AgentSession> {
  const { username, password } = await createAgent(request);
  const token = await apiLogin(request, username, password);
  await api(request, token, '/api/index/state', { state });
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  const dialogs = watchDialogs(page);
  await openConsole(page, '/workbench/workbench', { token, language: 'en' });
  await expect(page.getByTestId('workbench')).toBeVisible();
  await expect(page.getByTestId('wb-connection')).toHaveAttribute('data-status', 'open');
  return { context, page, token, dialogs };
}

async function openShop(page: Page, path = '/'): Promise<void> {
  await page.goto(`${SHOP}${path}`);
  await expect(launcher(page)).toBeVisible();
}

async function visitorSays(page: Page, text: string): Promise<void> {
  const box = widget(page).locator('.composer textarea');
  await box.fill(text);
  await box.press('Enter');
  await expect(widget(page).locator('.row.me .bubble', { hasText: text }).last()).toBeVisible();
}

/** Opens the conversation of the visitor whose last message is this text, accepting it if it waits. */
/** Opens the conversation whose list line shows `line` (by default the visitor's `text`), and takes it. */
async function openConversationOf(agent: Page, text: string, line: string | RegExp = text): Promise<void> {
  const item = agent.getByTestId('wb-visitor').filter({ hasText: line });
  await expect(item).toBeVisible();
  await item.click();
  await expect(agent.getByTestId('wb-bubble').filter({ hasText: text })).toBeVisible();
  const accept = agent.getByTestId('wb-accept');
  if (await accept.isEnabled()) await accept.click();
  await expect(agent.getByTestId('wb-conv-state')).toHaveText('In conversation');
}

async function agentSays(agent: Page, text: string): Promise<void> {
  const input = agent.getByTestId('wb-input');
  await input.fill(text);
  await input.press('Enter');
  await expect(agent.locator('.wb-row.me [data-testid="wb-bubble"]', { hasText: text })).toBeVisible();
}

test('a visitor on another site and an agent chat both ways; pages show live; markup stays text; reloads keep the history', async ({
  browser,
  request,
}) => {
  const agent = await openWorkbench(browser, request);
  const visitorContext = await browser.newContext({ locale: 'en-US' });
  const visitor = await visitorContext.newPage();
  const visitorDialogs = watchDialogs(visitor);

  await openShop(visitor);
  await launcher(visitor).click();
  const hello = `Where is my order ${Date.now()}?`;
  await visitorSays(visitor, hello);

  // The agent sees the visitor arrive, opens the conversation and answers.
  await openConversationOf(agent.page, hello);
  const reply = 'Hello! Let me check that for you.';
  await agentSays(agent.page, reply);
  await expect(widget(visitor).locator('.row.them .bubble', { hasText: reply })).toBeVisible();

  // Markup in both directions is shown as the characters typed, and never runs.
  const image = '<img src=x onerror=alert(1)>';
  const bold = '<b>bold</b>';
  await visitorSays(visitor, image);
  await visitorSays(visitor, bold);
  const agentBubbles = agent.page.locator('.wb-row.them [data-testid="wb-bubble"]');
  await expect(agentBubbles.filter({ hasText: image })).toHaveText(image);
  await expect(agentBubbles.filter({ hasText: bold })).toHaveText(bold);
  await expect(agent.page.locator('[data-testid="wb-bubble"] b, [data-testid="wb-bubble"] img:not(.ant-image-img)')).toHaveCount(0);
  await agentSays(agent.page, `${bold} ${image}`);
  await expect(widget(visitor).locator('.row.them .bubble', { hasText: `${bold} ${image}` })).toBeVisible();
  await expect(widget(visitor).locator('.bubble b, .bubble img:not(.pic)')).toHaveCount(0);

  // The visitor moves through the shop: the panel lists each page as it is opened.
  const panel = agent.page.getByTestId('wb-panel');
  await expect(panel.getByTestId('wb-visit').filter({ hasText: 'Acme Shop' })).toBeVisible();
  await visitor.locator('#to-rocket').click();
  await expect(visitor).toHaveTitle(/Rocket/);
  await expect(panel.getByTestId('wb-visit').first()).toContainText('Rocket - Acme Shop');
  await expect(panel.getByTestId('wb-visit').first()).toContainText(`${SHOP}/products/rocket`);
  await visitor.evaluate(() => {
    history.pushState({}, '', '/checkout');
    document.title = 'Checkout - Acme Shop';
  });
  await expect(panel.getByTestId('wb-visit').first()).toContainText(`${SHOP}/checkout`);

  // Reloading the console keeps the whole conversation.
  await agent.page.reload();
  await expect(agent.page.getByTestId('wb-connection')).toHaveAttribute('data-status', 'open');
  await agent.page.getByTestId('wb-visitor').filter({ hasText: 'bold' }).first().click();
  for (const text of [hello, reply, image, bold])
    await expect(agent.page.getByTestId('wb-bubble').filter({ hasText: text }).first()).toBeVisible();

  // Reloading the shop keeps it for the visitor too, and the conversation goes on.
  await visitor.reload();
  // The window was open before the reload: it is open after it, without a click.
  await expect(launcher(visitor)).toHaveAttribute('aria-expanded', 'true');
  for (const text of [hello, reply, image]) await expect(widget(visitor).locator('.bubble', { hasText: text }).first()).toBeVisible();
  const after = 'Still here after the reload';
  await visitorSays(visitor, after);
  await expect(agent.page.getByTestId('wb-bubble').filter({ hasText: after })).toBeVisible();

  expect(visitorDialogs).toEqual([]);
  expect(agent.dialogs).toEqual([]);
  expect(await visitor.evaluate(() => document.querySelectorAll('img[src="x"]').length)).toBe(0);
  await visitorContext.close();
  await agent.context.close();
});

test('the agent sees the visitor typing, uses a quick reply, withdraws a message and ends the conversation', async ({
  browser,
  request,
}) => {
  // The team's quick replies are the settings page's: one is added to it first, as an administrator would.
  const admin = await apiLogin(request);
  const stamp = Date.now();
  const team = await api<{ groups: { name: string; items: { title: string; content: string }[] }[] }>(
    request,
    admin,
    '/api/settings/quickReply',
  );
  const greeting = { title: `Greeting ${stamp}`, content: 'Hello! How can I help you today?' };
  await api(request, admin, '/api/settings/quickReply', { groups: [...team.groups, { name: 'Openers', items: [greeting] }] });

  const agent = await openWorkbench(browser, request);
  const visitorContext = await browser.newContext({ locale: 'en-US' });
  const visitor = await visitorContext.newPage();
  await openShop(visitor);
  await launcher(visitor).click();
  const hello = `Do you ship abroad ${stamp}?`;
  await visitorSays(visitor, hello);
  await openConversationOf(agent.page, hello);

  // The visitor's draft shows up before it is sent.
  await widget(visitor).locator('.composer textarea').pressSequentially('And to Ice', { delay: 30 });
  await expect(agent.page.getByTestId('wb-typing')).toContainText('And to Ice');

  // A team quick reply is found by its title from the keyboard and lands in the draft; Enter sends it.
  await agent.page.getByTestId('wb-quick-open').click();
  await agent.page.getByTestId('wb-quick-search').fill(greeting.title);
  await expect(agent.page.getByTestId('wb-quick').getByRole('option')).toHaveCount(1);
  await agent.page.getByTestId('wb-quick-search').press('Enter');
  await expect(agent.page.getByTestId('wb-quick')).toBeHidden();
  await expect(agent.page.getByTestId('wb-input')).toHaveValue('Hello! How can I help you today?');
  await agent.page.getByTestId('wb-input').press('Enter');
  await expect(widget(visitor).locator('.row.them .bubble', { hasText: 'Hello! How can I help you today?' })).toBeVisible();

  // A message to the agent blinks the console's title until the agent clicks anywhere.
  await visitorSays(visitor, 'Are you there?');
  await expect.poll(() => agent.page.title(), { intervals: [200] }).toContain('【New message】');
  await agent.page.getByTestId('wb-messages').click();
  await expect.poll(() => agent.page.title()).not.toContain('【');

  // Images and files: uploaded, then sent; an image shows as a thumbnail, a file as a download link.
  await agent.page
    .getByTestId('wb-image-input')
    .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: Buffer.from(PNG, 'base64') });
  await expect(agent.page.locator('.wb-row.me .wb-image img')).toBeVisible();
  await expect(widget(visitor).locator('.row.them .bubble img.pic')).toBeVisible();
  await agent.page
    .getByTestId('wb-file-input')
    .setInputFiles({ name: 'invoice.pdf', mimeType: 'application/pdf', buffer: Buffer.from(PDF) });
  await expect(agent.page.locator('.wb-row.me a.wb-file')).toContainText('invoice.pdf');
  await expect(widget(visitor).locator('.row.them a.file')).toBeVisible();

  // A message sent by mistake is withdrawn from the context menu, on both sides.
  const mistake = 'Sorry, wrong customer';
  await agentSays(agent.page, mistake);
  await expect(widget(visitor).locator('.row.them .bubble', { hasText: mistake })).toBeVisible();
  await agent.page.locator('.wb-row.me [data-testid="wb-bubble"]', { hasText: mistake }).click({ button: 'right' });
  await clickMenuItem(agent.page, 'Withdraw');
  await expect(agent.page.getByText('You withdrew a message')).toBeVisible();
  await expect(widget(visitor).locator('.row.them .bubble', { hasText: mistake })).toHaveCount(0);

  // A long conversation opens at its newest messages; scrolling up brings the earlier ones.
  const token = await agent.page.locator('.wb-visitor.active').getAttribute('data-token');
  if (!token) throw new Error('no visitor token');
  for (let line = 1; line <= 40; line++)
    await api(request, agent.token, '/api/talk/send', { YQToken: token, msg: `Line ${line}`, onlyID: `e2e-line-${Date.now()}-${line}` });
  await agent.page.reload();
  await agent.page.locator(`[data-token="${token}"]`).click();
  await expect(agent.page.getByTestId('wb-bubble').filter({ hasText: /^Line 40$/ })).toBeVisible();
  await expect(agent.page.getByTestId('wb-bubble').filter({ hasText: hello })).toHaveCount(0);
  await expect(async () => {
    await agent.page.getByTestId('wb-messages').evaluate((element) => element.scrollTo(0, 0));
    await expect(agent.page.getByTestId('wb-bubble').filter({ hasText: hello })).toBeVisible({ timeout: 1000 });
  }).toPass();

  // Ending it: the tip is worded for the agent's language, and the conversation moves to its group.
  await agent.page.getByTestId('wb-end').click();
  await agent.page.getByRole('button', { name: 'End', exact: true }).last().click();
  await expect(agent.page.getByTestId('wb-conv-state')).toHaveText('Ended');
  await expect(agent.page.getByTestId('wb-tip').filter({ hasText: 'The conversation has ended' })).toBeVisible();
  await expect(agent.page.getByTestId('wb-visitor').filter({ hasText: 'The conversation has ended' })).toHaveAttribute('data-state', 'end');
  await visitorContext.close();
  await agent.context.close();
});

test('with every agent hidden, the visitor leaves a message', async ({ browser, request }) => {
  // The agent is signed in and connected, but hidden: the widget must offer leave-a-message.
  const agent = await openWorkbench(browser, request, '0');
  await agent.page.getByTestId('wb-availability').getByText('Hidden').click();
  await expect.poll(async () => (await api<{ info: { state: string } }>(request, agent.token, '/api/index')).info.state).toBe('1');

  // Agents of other suites may still be online on this shared server for a moment; wait until none is.
  await expect
    .poll(
      async () => {
        const response = await request.post(`${BASE_URL}/api/visitor/init`, { data: { url: `${SHOP}/probe` } });
        return ((await response.json()) as Envelope<{ settings: { online: boolean } }>).data.settings.online;
      },
      { timeout: 40_000, intervals: [500] },
    )
    .toBe(false);

  const unreadBefore = await api<number | null>(request, agent.token, '/api/letter/unreadCount');
  const visitorContext = await browser.newContext({ locale: 'en-US' });
  const visitor = await visitorContext.newPage();
  await openShop(visitor);
  await launcher(visitor).click();
  const chat = widget(visitor);
  // The widget opens the form itself when nobody is online, or offers it in a banner.
  const form = chat.locator('form.letter');
  const offer = chat.locator('.banner button.link');
  await expect(form.or(offer)).toBeVisible();
  if (!(await form.isVisible())) await offer.click();
  const content = `Please call me back about order ${Date.now()}`;
  await form.locator('#letter-name').fill('Li Lei');
  await form.locator('#letter-email').fill('lilei@example.com');
  await form.locator('#letter-content').fill(content);
  await form.locator('button[type=submit]').click();
  await expect(chat.getByText('Message received')).toBeVisible();

  // The message is stored for the team: the unread count every agent sees has grown.
  const unreadAfter = await api<number | null>(request, agent.token, '/api/letter/unreadCount');
  expect(unreadAfter ?? 0).toBeGreaterThan(unreadBefore ?? 0);
  await visitorContext.close();
  await agent.context.close();
});

test('on a phone the list and the conversation are two screens, and the details open in a drawer', async ({ browser, request }) => {
  const { username, password } = await createAgent(request);
  const token = await apiLogin(request, username, password);
  await api(request, token, '/api/index/state', { state: '0' });
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const agent = await context.newPage();
  await openConsole(agent, '/workbench/workbench', { token, language: 'en' });
  await expect(agent.getByTestId('wb-connection')).toHaveAttribute('data-status', 'open');

  const visitorContext = await browser.newContext({ locale: 'en-US' });
  const visitor = await visitorContext.newPage();
  await openShop(visitor, '/products/rocket');
  await launcher(visitor).click();
  const hello = `Is the rocket in stock ${Date.now()}?`;
  await visitorSays(visitor, hello);

  await agent.getByTestId('wb-visitor').filter({ hasText: hello }).click();
  await expect(agent.getByTestId('wb-conversation')).toBeVisible();
  await expect(agent.getByTestId('wb-visitor')).toHaveCount(0);
  await agent.getByRole('button', { name: 'Visitor details' }).click();
  await expect(agent.locator('.wb-drawer').getByTestId('wb-visit').first()).toContainText('Rocket - Acme Shop');
  await agent.locator('.wb-drawer').getByRole('button', { name: 'Close' }).click();
  await agent.getByTestId('wb-back').click();
  await expect(agent.getByTestId('wb-visitor').filter({ hasText: hello })).toBeVisible();
  await visitorContext.close();
  await context.close();
});

test('a supervisor monitors an agent’s conversation and transfers it to another agent', async ({ browser, request }) => {
  // A supervisor holds setPermissions:service; hidden, so that no visitor is routed to it.
  const admin = await apiLogin(request);
  const stamp = Date.now().toString(36);
  const role = await api<{ id: number }>(request, admin, '/api/role/doEdit', {
    name: `Supervisor ${stamp}`,
    permissions: ['setPermissions:service'],
  });
  const supervisorName = `sup${stamp}`;
  await api(request, admin, '/api/service/doEdit', {
    username: supervisorName,
    nickname: `Sam ${stamp}`,
    password: 'sup-pass-123',
    roleId: role.id,
  });
  const target = await createAgent(request);
  const targetToken = await apiLogin(request, target.username, target.password);
  await api(request, targetToken, '/api/index/state', { state: '1' });
  // A conversation is only transferred to an agent whose workbench is open.
  const targetContext = await browser.newContext({ locale: 'en-US' });
  const targetPage = await targetContext.newPage();
  await openConsole(targetPage, '/workbench/workbench', { token: targetToken, language: 'en' });
  await expect(targetPage.getByTestId('wb-connection')).toHaveAttribute('data-status', 'open');

  const agent = await openWorkbench(browser, request);
  const visitorContext = await browser.newContext({ locale: 'en-US' });
  const visitor = await visitorContext.newPage();
  await openShop(visitor);
  await launcher(visitor).click();
  const hello = `Can I change my address ${Date.now()}?`;
  await visitorSays(visitor, hello);
  await openConversationOf(agent.page, hello);

  const supervisorToken = await apiLogin(request, supervisorName, 'sup-pass-123');
  await api(request, supervisorToken, '/api/index/state', { state: '1' });
  const context = await browser.newContext({ locale: 'en-US' });
  const supervisor = await context.newPage();
  await openConsole(supervisor, '/workbench/workbench', { token: supervisorToken, language: 'en' });
  await expect(supervisor.getByTestId('wb-connection')).toHaveAttribute('data-status', 'open');
  await supervisor.getByTestId('wb-visitor').filter({ hasText: hello }).click();
  // Someone else's conversation: no accepting, no typing, but monitoring and transferring.
  await expect(supervisor.getByTestId('wb-accept')).toBeDisabled();
  await expect(supervisor.getByTestId('wb-input')).toBeDisabled();
  await supervisor.getByTestId('wb-monitor').click();
  await expect(supervisor.getByTestId('wb-monitor')).toBeDisabled();
  const live = 'Yes, just tell me the new one';
  await agentSays(agent.page, live);
  await expect(supervisor.getByTestId('wb-bubble').filter({ hasText: live })).toBeVisible();

  await supervisor.getByTestId('wb-transfer').click();
  const dialog = supervisor.getByRole('dialog');
  await dialog.locator('.ant-select').click();
  // Found by typing: the list is virtual, and holds every agent earlier tests made.
  await supervisor.keyboard.type(target.username);
  await supervisor.locator('.ant-select-item-option').filter({ hasText: target.username }).click();
  await dialog.getByRole('button', { name: 'Transfer' }).click();
  await expect(agent.page.getByTestId('wb-tip').filter({ hasText: `Conversation transferred to ${target.username}` })).toBeVisible();
  await expect(agent.page.getByTestId('wb-input')).toBeDisabled();
  await visitorContext.close();
  await context.close();
  await targetContext.close();
  await agent.context.close();
});

test('a plain agent transfers their own conversation to another agent, who receives it', async ({ browser, request }) => {
  // The receiver is hidden (no visitor is routed to them), with a workbench open: a transfer still reaches them.
  const receiver = await openWorkbench(browser, request, '1');
  const receiverName = (await api<{ info: { nickname: string } }>(request, receiver.token, '/api/index')).info.nickname;
  const agent = await openWorkbench(browser, request);
  const visitorContext = await browser.newContext({ locale: 'en-US' });
  const visitor = await visitorContext.newPage();
  await openShop(visitor);
  await launcher(visitor).click();
  const hello = `Who handles refunds ${Date.now()}?`;
  await visitorSays(visitor, hello);
  await openConversationOf(agent.page, hello);
  // A plain agent holds no supervisor rights: monitoring is not theirs, handing on their own conversation is.
  await expect(agent.page.getByTestId('wb-monitor')).toHaveCount(0);
  await agent.page.getByTestId('wb-transfer').click();
  const dialog = agent.page.getByRole('dialog');
  await dialog.locator('.ant-select').click();
  // The queue comes first; agents are found by typing (the list is virtual and holds every agent earlier tests made).
  await expect(agent.page.getByTestId('wb-transfer-queue')).toBeVisible();
  await agent.page.keyboard.type(receiverName);
  const option = agent.page.getByTestId('wb-transfer-agent').filter({ hasText: `@${receiverName}` });
  await expect(option).toHaveAttribute('data-availability', 'hidden');
  await expect(option).toContainText('Hidden');
  await expect(option).toContainText('0/10 conversations');
  await option.click();
  await dialog.getByRole('button', { name: 'Transfer' }).click();
  await expect(agent.page.getByTestId('wb-tip').filter({ hasText: `Conversation transferred to ${receiverName}` })).toBeVisible();
  await expect(agent.page.getByTestId('wb-input')).toBeDisabled();

  // The receiver has it as their own conversation and answers it; the visitor reads the answer. Its line
  // in the list previews the newest message, the visitor's or the transfer's tip, whichever came last.
  await openConversationOf(receiver.page, hello, new RegExp(`${hello.replace(/[?]/g, '\\?')}|Conversation transferred to ${receiverName}`));
  await expect(receiver.page.getByTestId('wb-tip').filter({ hasText: `Conversation transferred to ${receiverName}` })).toBeVisible();
  const answer = 'I take it from here';
  await agentSays(receiver.page, answer);
  await expect(widget(visitor).locator('.bubble', { hasText: answer })).toBeVisible();
  expect(agent.dialogs).toEqual([]);
  expect(receiver.dialogs).toEqual([]);
  await visitorContext.close();
  await agent.context.close();
  await receiver.context.close();
});

test('an agent whose connection drops reconnects and catches up on what it missed', async ({ browser, request }) => {
  const agent = await openWorkbench(browser, request);
  const visitorContext = await browser.newContext({ locale: 'en-US' });
  const visitor = await visitorContext.newPage();
  await openShop(visitor);
  await launcher(visitor).click();
  const hello = `Hello before the drop ${Date.now()}`;
  await visitorSays(visitor, hello);
  await openConversationOf(agent.page, hello);

  await agent.context.setOffline(true);
  await expect(agent.page.getByTestId('wb-connection')).not.toHaveAttribute('data-status', 'open');
  const missed = 'Sent while the agent was away';
  await visitorSays(visitor, missed);
  await agent.context.setOffline(false);
  await expect(agent.page.getByTestId('wb-connection')).toHaveAttribute('data-status', 'open', { timeout: 15_000 });
  await expect(agent.page.getByTestId('wb-bubble').filter({ hasText: missed })).toBeVisible();
  await expect(agent.page.getByTestId('wb-bubble').filter({ hasText: missed })).toHaveCount(1);
  await visitorContext.close();
  await agent.context.close();
});

test('a conversation whose visitor closed the page moves to "visitor left" with the time, apart from those in conversation', async ({
  browser,
  request,
}) => {
  const agent = await openWorkbench(browser, request);
  const visitorContext = await browser.newContext({ locale: 'en-US' });
  const visitor = await visitorContext.newPage();
  await openShop(visitor);
  await launcher(visitor).click();
  const hello = `Do you ship abroad ${Date.now()}?`;
  await visitorSays(visitor, hello);
  await openConversationOf(agent.page, hello);
  await agentSays(agent.page, 'We do, to most countries.');

  const current = agent.page.getByTestId('wb-group-current');
  const left = agent.page.getByTestId('wb-group-left');
  // The list's item by the visitor's token: its preview changes once the visitor leaves.
  const token = await agent.page.getByTestId('wb-visitor').filter({ hasText: 'We do' }).getAttribute('data-token');
  const item = agent.page.locator(`[data-testid="wb-visitor"][data-token="${token ?? ''}"]`);
  await expect(left).toContainText('Visitor left');
  await expect(left.locator('.wb-group-count')).toHaveText('0');
  await expect(current.locator('.wb-group-count')).toHaveText('1');
  await expect(item.getByTestId('wb-visitor-left')).toHaveCount(0);

  // The visitor closes the shop's page: once the presence grace passes, the conversation leaves "In conversation".
  await visitorContext.close();
  await expect(item.getByTestId('wb-visitor-left')).toContainText(/Left at \d{2}:\d{2}/, { timeout: 20_000 });
  await expect(left.locator('.wb-group-count')).toHaveText('1');
  await expect(current.locator('.wb-group-count')).toHaveText('0');
  // The agent is told in the conversation too.
  await expect(agent.page.getByText('The visitor left', { exact: false }).first()).toBeVisible();

  // A console opened afterwards learns the time from the server.
  await agent.page.reload();
  await expect(item.getByTestId('wb-visitor-left')).toContainText(/Left at \d{2}:\d{2}/);
  await expect(current.locator('.wb-group-count')).toHaveText('0');

  const shots = process.env.WORKBENCH_SHOTS_DIR;
  if (shots) {
    for (const language of ['en', 'zh'] as const) {
      for (const width of [1440, 390]) {
        const page = await agent.context.newPage();
        await page.setViewportSize({ width, height: 900 });
        await openConsole(page, '/workbench/workbench', { token: agent.token, language });
        // A console opened afterwards is told the time too.
        await expect(page.getByTestId('wb-visitor-left').first()).toContainText(/\d{2}:\d{2}/);
        await page.screenshot({ path: `${shots}/workbench-left-${language}-${width}.png` });
        await page.close();
      }
    }
  }
  await agent.context.close();
});
