import { expect, test } from '@playwright/test';
import { apiLogin, clickMenuItem, createAgent, openConsole } from '../../support/console';

const LAYOUTS: Record<string, string> = {
  vertical: '[data-testid="sider"] .ant-menu-inline',
  float: '[data-testid="sider"] .ant-menu-vertical',
  horizontal: '.top-menu.ant-menu-horizontal',
  common: '.top-bar-common',
  column: '[data-testid="column-item"]',
  comprehensive: '[data-testid="comprehensive-tab"]',
};

for (const [layout, marker] of Object.entries(LAYOUTS)) {
  test(`the ${layout} layout renders`, async ({ page, request }) => {
    await openConsole(page, '/index', { token: await apiLogin(request), theme: { layout } });
    await expect(page.getByTestId('app-shell')).toHaveAttribute('data-layout', layout);
    await expect(page.locator(marker).first()).toBeVisible();
    await expect(page.getByTestId('home-page')).toBeVisible();
    await expect(page.getByTestId('home-live')).toBeVisible();
    await expect(page.getByTestId('tabs-bar')).toBeVisible();
  });
}

test('the column layout shows the chosen first-level route and its children', async ({ page, request }) => {
  await openConsole(page, '/index', { token: await apiLogin(request), theme: { layout: 'column' } });
  await page.getByTestId('column-item').filter({ hasText: '客服' }).first().click();
  await expect(page).toHaveURL(/#\/service\/service$/);
  await expect(page.locator('.column-menu')).toContainText('角色管理');
});

test('the comprehensive layout switches the sidebar by first-level tab', async ({ page, request }) => {
  await openConsole(page, '/index', { token: await apiLogin(request), theme: { layout: 'comprehensive' } });
  await page.getByTestId('comprehensive-tab').filter({ hasText: '客服' }).click();
  await expect(page).toHaveURL(/#\/service\/service$/);
  await expect(page.getByTestId('sider')).toContainText('登录日志');
  await expect(page.getByTestId('sider')).not.toContainText('档案用户');
});

test('at 390 px the console is mobile: vertical, sidebar folded, overlay folds it again', async ({ page, request }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openConsole(page, '/index', { token: await apiLogin(request), theme: { layout: 'column' } });
  await expect(page.getByTestId('app-shell')).toHaveAttribute('data-layout', 'vertical');
  const sider = page.getByTestId('sider');
  await expect(sider).not.toBeInViewport();
  await page.getByTestId('fold-button').click();
  await expect(sider).toBeInViewport();
  await expect(page.getByTestId('mobile-mask')).toBeVisible();
  await page.getByTestId('mobile-mask').click({ position: { x: 370, y: 400 } });
  await expect(sider).not.toBeInViewport();
  await expect(page.getByTestId('mobile-mask')).toHaveCount(0);
});

test('tabs: visited pages become tabs and close-others keeps home and the current one', async ({ page, request }) => {
  await openConsole(page, '/index', { token: await apiLogin(request), theme: { layout: 'vertical' } });
  await expect(page.getByTestId('home-page')).toBeVisible();
  for (const path of ['/service/role', '/service/record', '/service/service']) {
    await page.goto(`/#${path}`);
    await expect(page.locator(`[data-testid="tab"][data-path="${path}"]`)).toBeVisible();
  }
  await expect(page.getByTestId('tab')).toHaveCount(4);
  await page.locator('[data-testid="tab"][data-path="/service/record"]').click({ button: 'right' });
  await clickMenuItem(page, '关闭其他');
  await expect(page.getByTestId('tab')).toHaveCount(2);
  await expect(page).toHaveURL(/#\/service\/record$/);
  await expect(page.locator('[data-testid="tab"][data-path="/index"]')).toBeVisible();
});

test('tabs: closing the active tab opens the last one', async ({ page, request }) => {
  await openConsole(page, '/service/role', { token: await apiLogin(request), theme: { layout: 'vertical' } });
  await expect(page.locator('[data-testid="tab"][data-path="/service/role"]')).toBeVisible();
  await page.goto('/#/service/record');
  await expect(page.getByTestId('tab')).toHaveCount(3);
  await page.locator('.tabs-bar .ant-tabs-tab-active .ant-tabs-tab-remove').click();
  await expect(page).toHaveURL(/#\/service\/role$/);
  await expect(page.getByTestId('tab')).toHaveCount(2);
});

test('switching the language changes the menu and the title', async ({ page, request }) => {
  await openConsole(page, '/index', { token: await apiLogin(request), theme: { layout: 'vertical', showLanguage: true } });
  await expect(page).toHaveTitle('首页 - Parley 在线客服系统');
  await expect(page.getByTestId('sider')).toContainText('客服管理'.slice(0, 2));
  await page.getByTestId('header-language').click();
  await clickMenuItem(page, 'English');
  await expect(page).toHaveTitle('Home - Parley customer service');
  await expect(page.getByTestId('sider')).toContainText('Agents');
  await expect(page.getByTestId('sider')).not.toContainText('首页');
});

test('the theme drawer opens on the theme event, applies a layout and saves it', async ({ page, request }) => {
  await openConsole(page, '/index', { token: await apiLogin(request) });
  await expect(page.getByTestId('home-page')).toBeVisible();
  await page.evaluate(() => window.dispatchEvent(new Event('theme')));
  const drawer = page.locator('.theme-drawer');
  await expect(drawer).toBeVisible();
  // The select may still be animating open on a busy machine: choose again until the layout changed.
  await expect(async () => {
    await drawer.getByTestId('theme-layout').click();
    await page.locator('.ant-select-dropdown:visible .ant-select-item-option[title="横向"]').click({ timeout: 3000 });
    await expect(page.getByTestId('app-shell')).toHaveAttribute('data-layout', 'horizontal', { timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.locator('.ant-select-dropdown:visible')).toHaveCount(0);
  await page.getByTestId('theme-save').click();
  await expect(page.getByTestId('theme-save')).toBeHidden();
  await expect.poll(() => page.evaluate(() => localStorage.getItem('parley-theme') ?? '')).toContain('"layout":"horizontal"');
  await page.reload();
  await expect(page.getByTestId('app-shell')).toHaveAttribute('data-layout', 'horizontal');
  await page.evaluate(() => window.dispatchEvent(new Event('theme')));
  await page.getByTestId('theme-reset').click();
  await expect(page.getByTestId('app-shell')).toHaveAttribute('data-layout', 'column');
});

test('keep-alive: a page keeps its state across tabs; clicking the active tab reloads it', async ({ page, request }) => {
  await openConsole(page, '/service/role', { token: await apiLogin(request), theme: { layout: 'vertical' } });
  const search = page.getByTestId('role-page').getByPlaceholder('角色名称');
  await search.fill('kept');
  await page.locator('[data-testid="tab"][data-path="/index"]').click();
  await expect(page.getByTestId('home-page')).toBeVisible();
  await page.locator('[data-testid="tab"][data-path="/service/role"]').click();
  await expect(search).toHaveValue('kept');
  await page.locator('[data-testid="tab"][data-path="/service/role"]').click();
  await expect(page.getByTestId('role-page').getByPlaceholder('角色名称')).toHaveValue('');
});

test('column layout: a noColumn page folds the second column and hides the fold button', async ({ page, request }) => {
  await openConsole(page, '/index', { token: await apiLogin(request), theme: { layout: 'column' } });
  await expect(page.locator('.column-menu')).toBeVisible();
  await expect(page.getByTestId('fold-button')).toBeVisible();
  await page.getByTestId('column-item').filter({ hasText: '对话' }).click();
  await expect(page).toHaveURL(/#\/workbench\/workbench$/);
  await expect(page.locator('.column-menu')).toHaveCount(0);
  await expect(page.getByTestId('fold-button')).toHaveCount(0);
});

test('uncaught errors appear in the error-log popup, which can be cleared', async ({ page, request }) => {
  await openConsole(page, '/index', { token: await apiLogin(request) });
  await expect(page.getByTestId('home-page')).toBeVisible();
  await expect(page.getByTestId('header-error-log')).toHaveCount(0);
  await page.evaluate(() => {
    setTimeout(() => {
      throw new Error('boom from a test');
    });
  });
  await page.getByTestId('header-error-log').click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('boom from a test');
  await expect(dialog.getByRole('link', { name: '谷歌' })).toHaveAttribute('href', /google\.com\/search\?q=boom/);
  await dialog.getByRole('button', { name: '清空日志' }).click();
  await expect(page.getByTestId('header-error-log')).toHaveCount(0);
});

test('search: suggestions come from the server, filtered by what was typed', async ({ page, request }) => {
  await openConsole(page, '/index', { token: await apiLogin(request), theme: { showSearch: true } });
  await page.getByTestId('header-search').click();
  await page.getByRole('dialog').getByRole('combobox').fill('日志');
  await expect(page.locator('.ant-select-item-option').filter({ hasText: '登录日志' })).toBeVisible();
  await expect(page.locator('.ant-select-item-option').filter({ hasText: '角色管理' })).toHaveCount(0);
});

test('notices: an unread leave message shows on the bell and links to the leave-message records', async ({ page, request }) => {
  const left = await request.post('/api/visitor/letter', {
    data: { name: 'E2E visitor', content: 'Please call me back', phone: '13800138000' },
  });
  expect(left.ok()).toBe(true);
  await openConsole(page, '/index', { token: await apiLogin(request), theme: { layout: 'vertical' } });
  await expect(page.getByTestId('home-page')).toBeVisible();
  const bell = page.getByTestId('header-notice');
  await expect(page.locator('.ant-badge').filter({ has: bell }).locator('.ant-badge-count')).toBeVisible();
  await bell.click();
  const letters = page.getByRole('button', { name: /\d+ 条未读留言/ });
  await expect(letters).toBeVisible();
  // Like a person, click once the popover has finished opening (a click mid-animation can miss it).
  await letters.evaluate((element) => {
    const popover = element.closest('.ant-popover') ?? element;
    return Promise.all(popover.getAnimations({ subtree: true }).map((animation) => animation.finished));
  });
  await letters.click();
  await expect(page).toHaveURL(/#\/history\/letter$/);
});

test('home: the figures come from the server, and a plain agent sees no agent or sign-in figures', async ({ page, request }) => {
  await openConsole(page, '/index', { token: await apiLogin(request), language: 'en' });
  const live = page.getByTestId('home-live');
  for (const title of ['Visitors online', 'Waiting', 'In conversation', 'Visitors today', 'Conversations today', 'Unread leave messages']) {
    await expect(live.getByText(title, { exact: true })).toBeVisible();
  }
  await expect(page.getByText('Agents online', { exact: true })).toBeVisible();
  await expect(page.getByText('Failed sign-ins today', { exact: true })).toBeVisible();

  const agent = await createAgent(request);
  await openConsole(page, '/index', { token: await apiLogin(request, agent.username, agent.password), language: 'en' });
  await expect(live.getByText('Visitors today', { exact: true })).toBeVisible();
  await expect(page.getByText('Agents online', { exact: true })).toHaveCount(0);
  await expect(page.getByText('Sign-ins today', { exact: true })).toHaveCount(0);
  await expect(page.getByText('Failed sign-ins today', { exact: true })).toHaveCount(0);
});
