import { expect, test } from '@playwright/test';
import { apiLogin, clickMenuItem, createAgent, menuEntries, openConsole, TOKEN_KEY } from '../../support/console';
import { ADMIN_PASSWORD, ADMIN_USERNAME, BASE_URL } from '../../support/env';

test('a deep link asks for login with a redirect and comes back to the page', async ({ page }) => {
  await openConsole(page, '/service/role');
  await expect(page).toHaveURL(/#\/login\?redirect=%2Fservice%2Frole$/);
  await page.getByTestId('login-username').fill(ADMIN_USERNAME);
  await page.getByTestId('login-password').fill(ADMIN_PASSWORD);
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/#\/service\/role$/);
  await expect(page).toHaveTitle('角色管理 - Parley 在线客服系统');
  await expect(page.getByTestId('app-shell')).toBeVisible();
});

test('the root needs no redirect, and a token on /login goes to /', async ({ page, request }) => {
  await openConsole(page, '/');
  await expect(page).toHaveURL(/#\/login$/);
  const token = await apiLogin(request);
  await openConsole(page, '/login', { token });
  await expect(page).toHaveURL(/#\/index$/);
});

test('a wrong password shows the server message', async ({ page, request }) => {
  const answer = await request.post(`${BASE_URL}/api/login`, {
    data: { username: ADMIN_USERNAME, password: 'wrong-password' },
    headers: { 'Accept-Language': 'zh' },
  });
  expect(answer.status()).toBe(401);
  const { msg } = (await answer.json()) as { msg: string };
  expect(msg).toBeTruthy();
  await openConsole(page, '/service/record');
  await page.getByTestId('login-username').fill(ADMIN_USERNAME);
  await page.getByTestId('login-password').fill('wrong-password');
  await page.getByTestId('login-submit').click();
  await expect(page.locator('.ant-message-notice').filter({ hasText: msg })).toBeVisible();
  // The failed attempt keeps the page the user was going to.
  await expect(page).toHaveURL(/#\/login\?redirect=%2Fservice%2Frecord$/);
  await page.getByTestId('login-password').fill(ADMIN_PASSWORD);
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/#\/service\/record$/);
});

test('the login form checks its fields before calling the server', async ({ page }) => {
  await openConsole(page, '/login');
  await page.getByTestId('login-password').fill('123');
  await page.getByTestId('login-submit').click();
  await expect(page.getByText('用户名不能为空')).toBeVisible();
  await expect(page.getByText('密码不能少于 6 位')).toBeVisible();
});

test('an Agent sees fewer menu entries than an admin and cannot open a forbidden page', async ({ page, request }) => {
  const theme = { layout: 'vertical' };
  await openConsole(page, '/index', { token: await apiLogin(request), theme });
  await expect(menuEntries(page).first()).toBeVisible();
  const adminCount = await menuEntries(page).count();

  const agent = await createAgent(request);
  await openConsole(page, '/index', { token: await apiLogin(request, agent.username, agent.password), theme });
  await expect(page.getByTestId('home-page')).toBeVisible();
  await expect(menuEntries(page).first()).toBeVisible();
  const agentCount = await menuEntries(page).count();
  expect(agentCount).toBeGreaterThan(0);
  expect(agentCount).toBeLessThan(adminCount);
  await expect(page.getByTestId('sider').getByText('客服管理')).toHaveCount(0);
  await page.getByTestId('header-avatar').click();
  await expect(page.getByRole('menuitem', { name: '退出登录' })).toBeVisible();
  // Every agent edits their own profile from the avatar menu; the personal page itself stays the Admin's.
  await expect(page.getByRole('menuitem', { name: '个人中心' })).toBeVisible();
  await page.keyboard.press('Escape');

  await page.goto('/#/service/service');
  await expect(page).toHaveURL(/#\/403$/);
  await expect(page.getByTestId('error-403')).toBeVisible();
});

test('an unknown path goes to 404', async ({ page, request }) => {
  await openConsole(page, '/no/such/page', { token: await apiLogin(request) });
  await expect(page).toHaveURL(/#\/404$/);
  await expect(page.getByTestId('error-404')).toBeVisible();
});

test('logout returns to login with the page as redirect, and the old token answers 401', async ({ page, request }) => {
  const token = await apiLogin(request);
  await openConsole(page, '/service/record', { token });
  await expect(page.getByTestId('app-shell')).toBeVisible();
  await page.getByTestId('header-avatar').click();
  await clickMenuItem(page, '退出登录');
  await expect(page).toHaveURL(/#\/login\?redirect=%2Fservice%2Frecord$/);
  await expect(page.getByTestId('login-submit')).toBeVisible();
  expect(await page.evaluate((key) => localStorage.getItem(key), TOKEN_KEY)).toBeNull();
  const old = await request.get(`${BASE_URL}/api/userInfo`, { headers: { Authorization: `Bearer ${token}` } });
  expect(old.status()).toBe(401);
});
