import { BUSINESS_ROUTES, type RouteRecord } from '@parley/protocol';
import { expect, type Page, test } from '@playwright/test';
import { axeFindings } from '../../support/axe';
import { apiLogin, LANGUAGE_KEY, openConsole, THEME_KEY } from '../../support/console';
import { startShop } from '../../support/shop';

/**
 * Every page of the console's route tree: the business routes are data the console attaches its pages
 * to, so a page added there is checked here without a line more. Hidden pages (details, the statistics
 * breakdowns, the robot editors) are pages too; external links are not.
 */
function pagePaths(records: readonly RouteRecord[], parent = ''): string[] {
  return records.flatMap((record) => {
    if (/^(https?:|mailto:|tel:|\/\/)/.test(record.path)) return [];
    const path = record.path.startsWith('/') ? record.path : `${parent.replace(/\/$/, '')}/${record.path}`;
    return record.children?.length ? pagePaths(record.children, path) : [path];
  });
}

// Each test only reads: the file's tests may run apart, so `npm test`'s shards share them out.
test.describe.configure({ mode: 'parallel' });

const BUSINESS_PAGES = pagePaths(BUSINESS_ROUTES);
/** The console's public routes (they live in its own route table, not in the protocol's). */
const PUBLIC_PAGES = ['/login', '/register', '/403', '/404'];
/** The colour themes of the theme drawer: dark menus and light ones, each hue. */
const THEMES = ['blue-black', 'blue-white', 'green-black', 'green-white', 'red-black', 'red-white', 'ocean'];
const LAYOUTS = ['column', 'comprehensive', 'vertical', 'horizontal', 'common', 'float'];

/** Waits until the page has drawn what it loads: axe looks at the page a person sees, not a spinner. */
async function drawn(page: Page, language: 'zh' | 'en'): Promise<void> {
  await expect(page.locator('html')).toHaveAttribute('lang', language === 'zh' ? 'zh-CN' : 'en');
  await expect(page.getByRole('main')).toBeVisible();
  await expect(page.locator('main .ant-spin-spinning, main .ant-skeleton-active, .full-page-spin')).toHaveCount(0);
}

/** Switches the stored language and reloads, keeping the session: a second look costs no second sign-in. */
async function relanguage(page: Page, language: 'zh' | 'en'): Promise<void> {
  await page.evaluate(([key, value]) => localStorage.setItem(key, value), [LANGUAGE_KEY, language] as const);
  await page.reload();
}

for (const path of BUSINESS_PAGES) {
  test(`a11y: ${path} has no critical nor serious axe findings, in zh and en`, async ({ page, request }) => {
    await openConsole(page, path, { token: await apiLogin(request), language: 'zh' });
    await expect(page.getByTestId('tab').first()).toBeVisible();
    for (const language of ['zh', 'en'] as const) {
      if (language === 'en') await relanguage(page, 'en');
      await drawn(page, language);
      expect(await axeFindings(page), `${path} in ${language}`).toEqual([]);
    }
  });
}

for (const path of PUBLIC_PAGES) {
  test(`a11y: ${path} (signed out) has no critical nor serious axe findings, in zh and en`, async ({ page }) => {
    await openConsole(page, path, { language: 'zh' });
    for (const language of ['zh', 'en'] as const) {
      if (language === 'en') await relanguage(page, 'en');
      await expect(page.locator('html')).toHaveAttribute('lang', language === 'zh' ? 'zh-CN' : 'en');
      await expect(page.locator('.full-page-spin')).toHaveCount(0);
      await expect(page.locator('h1, h2, .ant-result-title').first()).toBeVisible();
      expect(await axeFindings(page), `${path} in ${language}`).toEqual([]);
    }
  });
}

for (const themeName of THEMES) {
  test(`a11y: the shell in the ${themeName} theme, in every layout, has no critical nor serious axe findings`, async ({
    page,
    request,
  }) => {
    // Every layout is a reload and an axe run: about 30 s on a 2-core machine, close to the 60 s default.
    test.slow();
    await openConsole(page, '/index', { token: await apiLogin(request), theme: { themeName }, language: 'en' });
    for (const layout of LAYOUTS) {
      await page.evaluate(([key, value]) => localStorage.setItem(key, value), [THEME_KEY, JSON.stringify({ themeName, layout })] as const);
      await page.reload();
      await expect(page.locator(`.layout-${layout}`)).toBeVisible();
      await drawn(page, 'en');
      expect(await axeFindings(page), `${themeName}, ${layout} layout`).toEqual([]);
    }
  });
}

test('a11y: the widget chat window has no critical nor serious axe findings', async ({ page }) => {
  await page.goto('/chat');
  // With no agent online it shows the leave-message form; with one, the composer: either is drawn.
  await expect(page.getByRole('main').getByRole('textbox').first()).toBeVisible();
  expect(await axeFindings(page)).toEqual([]);
});

test('a11y: the widget on a shop, launcher closed and window open, has no critical nor serious axe findings', async ({ page }) => {
  const shop = await startShop();
  try {
    await page.goto(shop.url);
    const launcher = page.locator('parley-widget button.l');
    await expect(launcher).toBeVisible();
    expect(await axeFindings(page), 'launcher').toEqual([]);
    await launcher.click();
    await expect(page.frameLocator('parley-widget iframe').getByRole('main').getByRole('textbox').first()).toBeVisible();
    expect(await axeFindings(page), 'open window').toEqual([]);
  } finally {
    await shop.close();
  }
});

test('a11y: the skip link is the first stop of Tab and moves focus into the main region', async ({ page, request }) => {
  await openConsole(page, '/service/service', { token: await apiLogin(request), theme: { layout: 'vertical' }, language: 'en' });
  await expect(page.getByRole('table')).toBeVisible();
  await page.locator('body').focus();
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main')).toBeFocused();
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => Boolean(document.activeElement?.closest('main')))).toBe(true);
});

test('a11y: the tab list holds only tabs; Delete closes the focused tab', async ({ page, request }) => {
  await openConsole(page, '/service/service', { token: await apiLogin(request), theme: { layout: 'vertical' }, language: 'en' });
  const tablist = page.getByRole('tablist', { name: 'Open pages' });
  await expect(tablist.getByRole('tab')).toHaveCount(2);
  await expect(tablist.getByRole('button')).toHaveCount(0);
  const close = page.locator('.tabs-bar .ant-tabs-tab-active .ant-tabs-tab-remove');
  await expect(close).toHaveAttribute('title', 'Close tab Agents');
  await expect(close).toHaveAttribute('tabindex', '-1');
  await tablist.getByRole('tab', { name: 'Agents' }).focus();
  await page.keyboard.press('Delete');
  await expect(page.getByTestId('tab')).toHaveCount(1);
  await expect(page.locator('[data-testid="tab"][data-path="/index"]')).toBeVisible();
});
