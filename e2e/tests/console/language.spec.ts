import { expect, type Page, test } from '@playwright/test';
import { apiLogin, clickMenuItem, LANGUAGE_KEY, openConsole } from '../../support/console';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from '../../support/env';

async function storedLanguage(page: Page): Promise<string | null> {
  return page.evaluate((key) => localStorage.getItem(key), LANGUAGE_KEY);
}

/** A first visit: nothing stored, so the browser's language decides. */
async function freshLogin(page: Page): Promise<void> {
  await page.goto('/#/404');
  await page.evaluate(() => localStorage.clear());
  await page.goto('/#/login');
  await page.reload();
}

test.describe('an English browser', () => {
  test.use({ locale: 'en-US' });

  test('opens the login page and the console in English when no language was chosen', async ({ page }) => {
    await freshLogin(page);
    await expect(page.getByText('Welcome back')).toBeVisible();
    await expect(page.getByTestId('login-submit')).toHaveText(/Sign in/);
    await page.getByTestId('login-username').fill(ADMIN_USERNAME);
    await page.getByTestId('login-password').fill(ADMIN_PASSWORD);
    await page.getByTestId('login-submit').click();
    await expect(page).toHaveTitle('Home - Parley customer service');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    // Nothing was chosen: the next visit asks the browser again.
    expect(await storedLanguage(page)).toBeNull();
  });

  test('a stored choice wins over the browser, and the avatar menu switches the language for good', async ({ page, request }) => {
    // The header's own language switch is hidden (the default theme): the avatar menu is the way.
    await openConsole(page, '/index', { token: await apiLogin(request), language: 'zh' });
    await expect(page).toHaveTitle('首页 - Parley 在线客服系统');
    await expect(page.getByTestId('header-language')).toHaveCount(0);
    await page.getByTestId('header-avatar').click();
    await clickMenuItem(page, 'English');
    await expect(page).toHaveTitle('Home - Parley customer service');
    await expect(page.getByTestId('sider')).toContainText('Agents');
    await page.reload();
    await expect(page).toHaveTitle('Home - Parley customer service');
    expect(await storedLanguage(page)).toBe('en');
    await page.getByTestId('header-avatar').click();
    await clickMenuItem(page, '简体中文');
    await expect(page).toHaveTitle('首页 - Parley 在线客服系统');
    await page.reload();
    await expect(page).toHaveTitle('首页 - Parley 在线客服系统');
    expect(await storedLanguage(page)).toBe('zh');
  });
});

test.describe('a browser in a language the console does not speak', () => {
  test.use({ locale: 'fr-FR' });

  test('opens the login page in Chinese, the default', async ({ page }) => {
    await freshLogin(page);
    await expect(page.getByText('欢迎回来')).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
  });
});
