import { expect, test } from '@playwright/test';
import { apiLogin, openConsole } from '../../support/console';

test('roles: create a role with permissions, then delete it', async ({ page, request }) => {
  const name = `Supervisor ${Date.now().toString(36)}`;
  await openConsole(page, '/service/role', { token: await apiLogin(request), theme: { layout: 'vertical' } });
  await page.getByTestId('role-create').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('角色名称').fill(name);
  await dialog.getByText('查看登录日志').click();
  await dialog.getByRole('button', { name: /保\s?存/ }).click();
  await expect(page.locator('.ant-message-notice').filter({ hasText: '保存成功' })).toBeVisible();
  const row = page.getByRole('row').filter({ hasText: name });
  await expect(row).toContainText('查看登录日志');
  await row.getByRole('button', { name: '删除' }).click();
  await page.getByRole('button', { name: /确\s?定/ }).click();
  await expect(page.getByRole('row').filter({ hasText: name })).toHaveCount(0);
});

test('agents: create an agent who can then sign in', async ({ page, request }) => {
  const username = `ui${Date.now().toString(36)}`;
  await openConsole(page, '/service/service', { token: await apiLogin(request), theme: { layout: 'vertical' } });
  await page.getByTestId('service-create').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('账号', { exact: true }).fill(username);
  await dialog.getByLabel('昵称', { exact: true }).fill('UI Agent');
  await dialog.getByLabel('密码', { exact: true }).fill('ui-agent-pass');
  await dialog.getByRole('button', { name: /保\s?存/ }).click();
  await expect(page.getByRole('row').filter({ hasText: username })).toContainText('Agent');
  expect(await apiLogin(request, username, 'ui-agent-pass')).toBeTruthy();
});

test('login log: filters by account and shows each attempt', async ({ page, request }) => {
  await openConsole(page, '/service/record', { token: await apiLogin(request), theme: { layout: 'vertical' } });
  await page.getByPlaceholder('账号').fill('admin');
  await page.getByRole('button', { name: '查 询' }).click();
  await expect(page.getByRole('row').filter({ hasText: '登录成功' }).first()).toBeVisible();
  await expect(page.locator('.ant-pagination-total-text')).toContainText('共');
});
