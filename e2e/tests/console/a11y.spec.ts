import AxeBuilder from '@axe-core/playwright';
import { SETTINGS_PAGES } from '@parley/protocol';
import { expect, type Page, test } from '@playwright/test';
import { apiLogin, openConsole } from '../../support/console';

/** Each page, and what shows it has drawn: a list page its table, a settings page its form, others their main region or a test id. */
const PAGES = [
  { name: 'agents', path: '/service/service', ready: 'table' },
  { name: 'login log', path: '/service/record', ready: 'table' },
  { name: 'roles', path: '/service/role', ready: 'table' },
  { name: 'leave messages', path: '/history/letter', ready: 'table' },
  { name: 'home', path: '/index', ready: 'main' },
  { name: 'workbench', path: '/workbench/workbench', ready: 'main' },
  { name: 'web visitors', path: '/user/user', ready: 'table' },
  { name: 'official account visitors', path: '/user/officialAccount', ready: 'table' },
  { name: 'mini program visitors', path: '/user/miniProgram', ready: 'table' },
  { name: 'history', path: '/history/history', ready: 'table' },
  { name: 'statistics', path: '/census/census', ready: 'main' },
  // Links left out: its empty table's horizontal scroll region holds nothing to focus (scrollable-region-focusable).
  { name: 'robots', path: '/robot/robot', ready: 'robot-index-page' },
  { name: 'personal', path: '/personal/personal', ready: 'main' },
  { name: 'access', path: '/access/access', ready: 'main' },
  { name: 'audit log', path: '/service/audit', ready: 'table' },
  ...SETTINGS_PAGES.map((page) => ({ name: `${page} settings`, path: `/system/${page}`, ready: 'form' })),
];

/**
 * Serious findings left to their own work, outside the shell: the antd palette's contrast (primary
 * buttons, tags, placeholders, the selected menu item) and antd's hidden table measure row.
 */
const KNOWN_SERIOUS = new Set(['color-contrast', 'aria-hidden-focus']);

/** The page's critical and (not yet known) serious axe violations, as "impact rule: targets" lines. */
async function violations(page: Page, known: ReadonlySet<string> = KNOWN_SERIOUS): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'critical' || (violation.impact === 'serious' && !known.has(violation.id)))
    .map((violation) => `${violation.impact} ${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

test('a11y: the widget chat window has no critical nor serious axe violations', async ({ page }) => {
  await page.goto('/chat');
  // With no agent online it shows the leave-message form; with one, the composer: either is drawn.
  await expect(page.getByRole('main').getByRole('textbox').first()).toBeVisible();
  // The chat window is not antd: nothing of the console's known list applies, colour contrast included.
  expect(await violations(page, new Set())).toEqual([]);
});

for (const { name, path, ready } of PAGES) {
  test(`a11y: the ${name} page has no critical axe violations, nor serious ones beyond the known`, async ({ page, request }) => {
    await openConsole(page, path, { token: await apiLogin(request), theme: { layout: 'vertical' } });
    await expect(page.getByTestId('tab').first()).toBeVisible();
    if (ready === 'table') await expect(page.getByRole('table')).toBeVisible();
    else if (ready === 'form') await expect(page.getByTestId('settings-form')).toBeVisible();
    else if (ready === 'main') await expect(page.getByRole('main')).toBeVisible();
    else await expect(page.getByTestId(ready)).toBeVisible();
    // A page that loads its data shows a spinner until it has it; axe looks at the drawn page.
    await expect(page.locator('main .ant-spin-spinning')).toHaveCount(0);
    expect(await violations(page)).toEqual([]);
  });
}

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
