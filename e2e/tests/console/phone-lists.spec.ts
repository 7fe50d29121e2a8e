import { type APIRequestContext, expect, type Locator, type Page, test } from '@playwright/test';
import { axeFindings } from '../../support/axe';
import { apiLogin, createAgent, openConsole, settled } from '../../support/console';

/*
 * The list pages on a phone (390 px): each row is a card with a line per column, the column's title
 * beside the cell's value, nothing scrolled out of sight sideways, the row's actions at the card's foot.
 * At 1440 px the same pages are still tables.
 */
test.describe.configure({ timeout: 120_000 });

const PHONE = { width: 390, height: 844 };

interface Envelope<T> {
  data: T;
}

/** Nothing on the page scrolls sideways: neither the document nor a box inside it (a table's body). */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const wide = await page.evaluate(() => {
    const root = document.documentElement;
    const found: string[] = [];
    if (root.scrollWidth > root.clientWidth) found.push(`document ${root.scrollWidth} > ${root.clientWidth}`);
    for (const element of Array.from(document.querySelectorAll<HTMLElement>('.list-page *'))) {
      const { overflowX } = getComputedStyle(element);
      if ((overflowX === 'auto' || overflowX === 'scroll') && element.scrollWidth > element.clientWidth + 1)
        found.push(`${element.className} ${element.scrollWidth} > ${element.clientWidth}`);
    }
    return found;
  });
  expect(wide).toEqual([]);
}

/** Each title is a term of the card, and every term and value of it lies inside the screen's width. */
async function expectCardShows(page: Page, card: Locator, titles: string[], values: string[]): Promise<void> {
  // The row is on screen (a table's or a card's), and no part of the list has to be scrolled to see it.
  await expect(
    page
      .locator('.list-page')
      .getByText(values[0] ?? '')
      .first(),
  ).toBeVisible();
  await expectNoSidewaysScroll(page);
  await expect(card).toHaveCount(1);
  const terms = card.getByRole('term');
  for (const title of titles) await expect(terms.filter({ hasText: new RegExp(`^${title}$`) })).toHaveCount(1);
  for (const value of values) await expect(card.getByRole('definition').filter({ hasText: value }).first()).toBeVisible();
  const width = page.viewportSize()?.width ?? 0;
  for (const line of await card.locator('dt, dd').all()) {
    await line.scrollIntoViewIfNeeded();
    const box = await line.boundingBox();
    expect(box, (await line.textContent()) ?? '').not.toBeNull();
    expect(box?.x ?? -1).toBeGreaterThanOrEqual(0);
    expect((box?.x ?? 0) + (box?.width ?? width + 1)).toBeLessThanOrEqual(width);
  }
}

async function search(page: Page, label: string, text: string): Promise<void> {
  await page.getByLabel(label, { exact: true }).fill(text);
  await page.getByRole('button', { name: /查\s?询/ }).click();
}

const cards = (page: Page, text: string) => page.getByTestId('kit-card').filter({ hasText: text });
const confirm = (page: Page) => page.locator('.ant-popconfirm').getByRole('button', { name: /确\s?定/ });

/** A visitor who said something (a conversation in history) and left a letter under `name`. */
async function visitorWithLetter(request: APIRequestContext, name: string, tag: string): Promise<void> {
  const init = (await (
    await request.post('/api/visitor/init', { data: { url: 'https://shop.example/', title: 'Shop' } })
  ).json()) as Envelope<{
    YQToken: string;
  }>;
  const said = await request.post('/api/visitor/message', {
    data: { YQToken: init.data.YQToken, msg: `Hello ${tag}`, onlyID: `phone-${tag}` },
  });
  expect(said.ok()).toBe(true);
  const letter = await request.post('/api/visitor/letter', {
    data: { YQToken: init.data.YQToken, name, phone: '+1 808 555 0100', email: `${tag}@phone.example`, content: `Call me back ${tag}` },
  });
  expect(letter.ok()).toBe(true);
}

test('agents at 390 px: a card per agent with every column, edit opens the form, delete asks and deletes', async ({ page, request }) => {
  const agent = await createAgent(request);
  await page.setViewportSize(PHONE);
  await openConsole(page, '/service/service', { token: await apiLogin(request), theme: { layout: 'vertical' } });
  await search(page, '账号', agent.username);
  const card = cards(page, agent.username);
  await expectCardShows(page, card, ['客服', '角色', '在线状态', '账号状态', '最大接待数', '创建时间'], [agent.username, 'Agent', '10']);

  await card.getByRole('button', { name: /编\s?辑/ }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('编辑客服');
  await dialog.getByLabel('最大接待数').fill('7');
  await dialog.getByRole('button', { name: /保\s?存/ }).click();
  await expect(dialog).toBeHidden();
  await expect(card.getByRole('definition').filter({ hasText: /^7$/ })).toBeVisible();

  const remove = card.getByRole('button', { name: '删除' });
  expect((await remove.boundingBox())?.height ?? 0).toBeGreaterThanOrEqual(44);
  await remove.click();
  await confirm(page).click();
  await expect(card).toHaveCount(0);
});

test('links at 390 px: every column in the card, edit opens the form, a ticked card is batch deleted', async ({ page, request }) => {
  const token = await apiLogin(request);
  const name = `Phone poster ${Date.now().toString(36)}`;
  const saved = await request.post('/api/link/doEdit', {
    headers: { Authorization: `Bearer ${token}` },
    data: { name, serviceID: null, remark: 'Flyer at the store entrance' },
  });
  expect(saved.ok()).toBe(true);
  await page.setViewportSize(PHONE);
  await openConsole(page, '/link/link', { token, theme: { layout: 'vertical' } });
  await search(page, '关键词', name);
  const card = cards(page, name);
  await expectCardShows(
    page,
    card,
    ['链接名称', '对话链接', '指定客服', '访客数', '对话数', '备注', '创建时间'],
    [name, '/chat?link=', 'Flyer at the store entrance'],
  );

  await card.getByRole('button', { name: /编\s?辑/ }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('编辑链接');
  await expect(dialog.getByLabel('链接名称')).toHaveValue(name);
  await settled(dialog);
  await dialog.getByRole('button', { name: /取\s?消/ }).click();
  await expect(dialog).toBeHidden();

  const batch = page.getByRole('button', { name: /批量删除/ });
  await expect(batch).toBeDisabled();
  await card.getByRole('checkbox', { name: '选择' }).check();
  await batch.click();
  await confirm(page).click();
  await expect(card).toHaveCount(0);
});

test('history, visitors and leave messages at 390 px: a card per row with every column', async ({ page, request }) => {
  const token = await apiLogin(request);
  const tag = Date.now().toString(36);
  const name = `Phone visitor ${tag}`;
  await visitorWithLetter(request, name, tag);
  await page.setViewportSize(PHONE);

  await openConsole(page, '/history/history', { token, theme: { layout: 'vertical' } });
  await search(page, '关键词', `Hello ${tag}`);
  await expectCardShows(page, page.getByTestId('kit-card'), ['访客', '客服', '开始时间', '时长', '消息数', '首次响应', '评分'], [name]);

  await openConsole(page, '/user/user', { token, theme: { layout: 'vertical' } });
  await search(page, '关键词', tag);
  await expectCardShows(page, cards(page, name), ['访客', '地区', '设备', '来源', '访问次数', '对话数', '首次访问', '最近访问'], [name]);

  await openConsole(page, '/history/letter', { token, theme: { layout: 'vertical' } });
  await search(page, '关键词', tag);
  const letter = cards(page, name);
  await expectCardShows(
    page,
    letter,
    ['状态', '姓名', '电话', '邮箱', '留言内容', '留言时间'],
    ['未读', '+1 808 555 0100', `${tag}@phone.example`, `Call me back ${tag}`],
  );
  await letter.getByRole('button', { name: /查\s?看/ }).click();
  await expect(page.getByRole('dialog')).toContainText('留言详情');
});

test('login log at 390 px: a card per sign-in with every column', async ({ page, request }) => {
  const agent = await createAgent(request);
  await apiLogin(request, agent.username, agent.password);
  await page.setViewportSize(PHONE);
  await openConsole(page, '/service/record', { token: await apiLogin(request), theme: { layout: 'vertical' } });
  await search(page, '账号', agent.username);
  await expectCardShows(
    page,
    cards(page, agent.username),
    ['账号', '结果', '原因', 'IP 地址', '浏览器', '登录时间'],
    [agent.username, '成功'],
  );
});

test('the cards at 390 px have no critical nor serious axe findings, in zh and en', async ({ page, request }) => {
  const token = await apiLogin(request);
  const tag = Date.now().toString(36);
  await visitorWithLetter(request, `Axe ${tag}`, tag);
  await page.setViewportSize(PHONE);
  for (const language of ['zh', 'en'] as const)
    for (const path of ['/service/service', '/service/record', '/history/letter']) {
      await openConsole(page, path, { token, theme: { layout: 'vertical' }, language });
      await expect(page.getByTestId('kit-card').first()).toBeVisible();
      await expect(page.locator('main .ant-spin-spinning')).toHaveCount(0);
      // The cells' colours are the table's (the a11y suite checks their contrast on every page); what
      // is looked at here is what the cards add: the list, its terms, the boxes' and buttons' names.
      expect(await axeFindings(page, { include: '.list-page', disableRules: ['color-contrast'] }), `${path} in ${language}`).toEqual([]);
    }
});

test('at 1440 px the lists are still tables', async ({ page, request }) => {
  const token = await apiLogin(request);
  for (const path of ['/service/service', '/link/link', '/history/history', '/user/user', '/history/letter', '/service/record']) {
    await openConsole(page, path, { token, theme: { layout: 'vertical' } });
    await expect(page.locator('.list-page').getByRole('table')).toBeVisible();
    await expect(page.getByRole('columnheader').nth(2)).toBeVisible();
    await expect(page.getByTestId('kit-card')).toHaveCount(0);
  }
});
