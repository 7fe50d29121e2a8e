import { expect, type Page, test } from '@playwright/test';
import { apiLogin, openConsole } from '../../support/console';

/** Texts of the given elements whose content does not fit their box: cut by an ellipsis or spilling over. */
function cutTexts(page: Page, selector: string): Promise<string[]> {
  return page
    .locator(selector)
    .evaluateAll((elements) =>
      elements.filter((element) => element.scrollWidth > element.clientWidth + 1).map((element) => element.textContent ?? ''),
    );
}

/** A sortable header's title (its cell also holds the sorter's arrows), or a plain header cell. */
const HEADER_TITLES = '.ant-table-thead .ant-table-column-title, .ant-table-thead th:not(:has(.ant-table-column-title))';

/** Header titles of one word drawn on more than one line, i.e. broken inside the word. */
function brokenWords(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((elements) =>
    elements
      .filter((element) => {
        const text = element.textContent?.trim() ?? '';
        if (!text || /\s/.test(text)) return false;
        const range = document.createRange();
        range.selectNodeContents(element);
        const lines = new Set(Array.from(range.getClientRects()).map((rect) => Math.round(rect.top)));
        return lines.size > 1;
      })
      .map((element) => element.textContent ?? ''),
  );
}

test.describe('English labels at 1440 px', () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  for (const path of ['/user/officialAccount', '/user/miniProgram']) {
    test(`${path}: menu titles are whole and table headers do not break inside a word`, async ({ page, request }) => {
      // The default layout (column): the bar of first-level titles, then the section's menu.
      await openConsole(page, path, { token: await apiLogin(request), language: 'en' });
      const table = page.locator('.ant-table-thead');
      await expect(table.first()).toBeVisible();
      await expect(page.getByTestId('column-item').first()).toBeVisible();
      await expect(page.locator('.column-menu .ant-menu-item').first()).toBeVisible();
      expect(await cutTexts(page, '.column-item-title')).toEqual([]);
      expect(await cutTexts(page, '.column-menu .ant-menu-item, .column-menu .ant-menu-title-content')).toEqual([]);
      await expect(page.locator('.column-menu')).toContainText('Official-account visitors');
      await expect(page.locator('.ant-table-thead')).toContainText('Conversations');
      expect(await brokenWords(page, HEADER_TITLES)).toEqual([]);
    });
  }

  test('the vertical layout: the sidebar shows every visitor page title whole', async ({ page, request }) => {
    await openConsole(page, '/user/officialAccount', { token: await apiLogin(request), language: 'en', theme: { layout: 'vertical' } });
    const sider = page.getByTestId('sider');
    await expect(sider.getByText('Mini-program visitors')).toBeVisible();
    expect(await cutTexts(page, '[data-testid="sider"] .ant-menu-item, [data-testid="sider"] .ant-menu-title-content')).toEqual([]);
  });

  test('statistics: the agents table headers keep their words whole', async ({ page, request }) => {
    await openConsole(page, '/census/service/talk', { token: await apiLogin(request), language: 'en' });
    const headers = page.getByTestId('census-table').locator('.ant-table-thead');
    await expect(headers.first()).toContainText('Median first response');
    expect(await brokenWords(page, HEADER_TITLES)).toEqual([]);
    expect(await cutTexts(page, '.column-item-title')).toEqual([]);
  });
});
