import { type APIRequestContext, expect, type Locator, type Page } from '@playwright/test';
import { ADMIN_PASSWORD, ADMIN_USERNAME, BASE_URL } from './env';

export const TOKEN_KEY = 'parley-token';
export const THEME_KEY = 'parley-theme';
export const LANGUAGE_KEY = 'parley-language';

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

export async function apiLogin(
  request: APIRequestContext,
  username = ADMIN_USERNAME,
  password = ADMIN_PASSWORD,
  base = BASE_URL,
): Promise<string> {
  const response = await request.post(`${base}/api/login`, { data: { username, password } });
  const body = (await response.json()) as Envelope<{ token: string }>;
  if (!body.data?.token) throw new Error(`login of ${username} failed: ${body.msg}`);
  return body.data.token;
}

let counter = 0;

/** A fresh account holding the built-in Agent role (workbench and history only). */
export async function createAgent(request: APIRequestContext, base = BASE_URL): Promise<{ username: string; password: string }> {
  const token = await apiLogin(request, ADMIN_USERNAME, ADMIN_PASSWORD, base);
  const headers = { Authorization: `Bearer ${token}` };
  const roles = (await (await request.get(`${base}/api/role/getList?pageNo=1&pageSize=100`, { headers })).json()) as Envelope<{
    list: { id: number; name: string }[];
  }>;
  const agentRole = roles.data.list.find((role) => role.name === 'Agent');
  if (!agentRole) throw new Error('no Agent role');
  const username = `agent${Date.now().toString(36)}${counter++}`;
  const password = 'agent-pass-1';
  const saved = await request.post(`${base}/api/service/doEdit`, {
    headers,
    data: { username, nickname: username, password, roleId: agentRole.id },
  });
  if (!saved.ok()) throw new Error(`could not create ${username}: ${await saved.text()}`);
  return { username, password };
}

/**
 * Opens the console with stored settings (before the app reads them) and, optionally, a session. The
 * storage is written from a small same-origin document (an API answer), so the console loads once, at
 * `path`, already holding them: loading it once more only to write its storage cost every test a start.
 */
export async function openConsole(
  page: Page,
  path: string,
  options: { token?: string; theme?: Record<string, unknown>; language?: 'zh' | 'en' } = {},
): Promise<void> {
  await page.goto('/api/publicKey');
  await page.evaluate(
    ([tokenKey, themeKey, languageKey, token, theme, language]) => {
      localStorage.clear();
      if (token) localStorage.setItem(tokenKey, token);
      if (theme) localStorage.setItem(themeKey, theme);
      if (language) localStorage.setItem(languageKey, language);
    },
    [
      TOKEN_KEY,
      THEME_KEY,
      LANGUAGE_KEY,
      options.token ?? '',
      options.theme ? JSON.stringify(options.theme) : '',
      // The console starts in the browser's language when none is stored; these tests were written
      // for the seed's zh whatever the browser speaks, so that is the choice stored unless one is given.
      options.language ?? 'zh',
    ] as const,
  );
  await page.goto(`/#${path}`);
}

/** First-level entries of the sidebar menu (items and submenus), in the vertical layout. */
export function menuEntries(page: Page) {
  return page.locator(
    '[data-testid="sider"] .ant-menu-root > li.ant-menu-item, [data-testid="sider"] .ant-menu-root > li.ant-menu-submenu',
  );
}

/**
 * Clicks an item of an open dropdown or context menu once the menu has finished sliding in. Playwright
 * retries a click on a moving element with forced scrolling, and on a long page that scroll moved the
 * menu (which follows its trigger) from under the pointer: a click no person makes.
 */
export async function clickMenuItem(page: Page, name: string): Promise<void> {
  const item = page.getByRole('menuitem', { name });
  await expect(item).toBeVisible();
  await item.evaluate((element) => {
    const menu = element.closest('.ant-dropdown') ?? element;
    return Promise.all(menu.getAnimations({ subtree: true }).map((animation) => animation.finished));
  });
  await item.click();
}

/**
 * Waits until an element (a dialog, a drawer) has finished animating in: a click on a button still zooming
 * can land where the button was a frame ago, a click no person makes.
 */
export async function settled(locator: Locator): Promise<void> {
  await locator.evaluate((element) => Promise.all(element.getAnimations({ subtree: true }).map((animation) => animation.finished)));
}
