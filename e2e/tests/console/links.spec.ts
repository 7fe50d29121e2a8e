import { expect, type Page, test } from '@playwright/test';
import { apiLogin, createAgent, openConsole } from '../../support/console';

/*
 * Friendly contacts and chat links as an administrator uses them. The link test ends with a visitor
 * opening the link's chat page and talking: the link is pinned to an agent whose workbench is open, so
 * the visitor has someone to talk to whatever else the shared server is doing.
 */
test.describe.configure({ timeout: 120_000 });

const saveButton = (page: Page) => page.getByRole('dialog').getByRole('button', { name: /保\s?存/ });
const confirmDelete = (page: Page) => page.locator('.ant-popconfirm').getByRole('button', { name: /确\s?定/ });

test('friendly contacts: create a contact, find it, edit it, delete it', async ({ page, request }) => {
  const suffix = Date.now().toString(36);
  const name = `Partner ${suffix}`;
  await openConsole(page, '/service/friendly', { token: await apiLogin(request), theme: { layout: 'vertical' } });
  await page.getByTestId('friendly-create').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('姓名').fill(name);
  await dialog.getByLabel('公司').fill('Acme Logistics');
  await dialog.getByLabel('微信').fill(`wx_${suffix}`);
  await saveButton(page).click();
  await expect(page.locator('.ant-message-notice').filter({ hasText: '保存成功' })).toBeVisible();

  await page.getByPlaceholder('关键词').fill(`wx_${suffix}`);
  await page.getByRole('button', { name: /查\s?询/ }).click();
  const row = page.getByRole('row').filter({ hasText: name });
  await expect(row).toContainText('Acme Logistics');
  await expect(page.locator('.ant-table-tbody tr.ant-table-row')).toHaveCount(1);

  await row.getByRole('button', { name: /编\s?辑/ }).click();
  await dialog.getByLabel('公司').fill('Acme Freight');
  await saveButton(page).click();
  await expect(row).toContainText('Acme Freight');

  await row.getByRole('button', { name: '删除' }).click();
  await confirmDelete(page).click();
  await expect(page.getByRole('row').filter({ hasText: name })).toHaveCount(0);
});

test('links: create a link pinned to an agent, see its QR code, and count the visitor who opens it', async ({ browser, page, request }) => {
  const agent = await createAgent(request);
  const agentToken = await apiLogin(request, agent.username, agent.password);
  const agentContext = await browser.newContext();
  const agentPage = await agentContext.newPage();
  await openConsole(agentPage, '/workbench/workbench', { token: agentToken });
  await expect(agentPage.getByTestId('wb-connection')).toHaveAttribute('data-status', 'open');

  const name = `Poster ${Date.now().toString(36)}`;
  await openConsole(page, '/link/link', { token: await apiLogin(request), theme: { layout: 'vertical' } });
  await page.getByTestId('link-create').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('链接名称').fill(name);
  // Typed, not scrolled to: the list is virtual, and earlier tests (and their retries) add agents to it.
  await dialog.getByLabel('指定客服').click();
  await dialog.getByLabel('指定客服').fill(agent.username);
  await page.locator('.ant-select-dropdown').getByTitle(agent.username, { exact: true }).click();
  await saveButton(page).click();
  const row = page.getByRole('row').filter({ hasText: name });
  await expect(row).toContainText(agent.username);
  await expect(row.getByTestId('link-visitors')).toHaveText('0');
  const url = (await row.getByTestId('link-url').textContent()) ?? '';
  expect(url).toMatch(/\/chat\?link=[A-Za-z0-9_-]{8}$/);

  await row.getByRole('button', { name: /二维码/ }).click();
  const qr = page.getByRole('dialog').filter({ hasText: `${name} 的二维码` });
  const image = qr.getByRole('img', { name: `${name} 的二维码` });
  await expect(image).toHaveAttribute('src', /^data:image\/png;base64,/);
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);
  await expect(qr.getByRole('link', { name: /下载/ })).toHaveAttribute('download', /^link-.+\.png$/);
  await qr.getByRole('button', { name: '关闭' }).click();
  await expect(qr).toBeHidden();

  const visitorContext = await browser.newContext({ locale: 'zh-CN' });
  const visitor = await visitorContext.newPage();
  await visitor.goto(url);
  const box = visitor.locator('.composer textarea');
  await box.fill('我是扫码来的');
  await box.press('Enter');
  await expect(visitor.locator('.row.me .bubble', { hasText: '我是扫码来的' })).toBeVisible();
  // The pinned agent has the conversation.
  await expect(agentPage.getByTestId('wb-visitor').filter({ hasText: '我是扫码来的' })).toBeVisible();

  await expect(async () => {
    await page.getByTestId('link-page').getByRole('button', { name: '刷新' }).click();
    await expect(row.getByTestId('link-visitors')).toHaveText('1', { timeout: 1000 });
  }).toPass();
  await expect(row.getByTestId('link-conversations')).toHaveText('1');
  await visitorContext.close();
  await agentContext.close();
});
