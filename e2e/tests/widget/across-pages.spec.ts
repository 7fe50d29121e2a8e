import { mkdirSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { onlineAgent } from '../../support/agent';
import { type Shop, startShop } from '../../support/shop';

// The chat window follows the visitor across the shop's pages and tabs: open on one page, it is open
// on the next (same conversation, same draft) and in a second tab; closed in one tab, closed in the
// other. With the window closed, an agent's message shows on the launcher with a count and a preview.

const SHOTS = process.env.SHOTS_DIR ?? 'test-results/shots';
let shop: Shop;

test.beforeAll(async () => {
  shop = await startShop();
});
test.afterAll(() => shop.close());

const launcher = (page: Page) => page.locator('parley-widget button.l');
const win = (page: Page) => page.locator('parley-widget .w');
const chat = (page: Page) => page.frameLocator('parley-widget iframe');

for (const { lang, locale } of [
  { lang: 'en', locale: 'en-US' },
  { lang: 'zh', locale: 'zh-CN' },
]) {
  for (const width of [1440, 390]) {
    test(`${lang} at ${width} px: the window stays open across pages and tabs, and a closed one previews what the agent said`, async ({
      browser,
      request,
    }) => {
      const agent = await onlineAgent(browser, request);
      const context = await browser.newContext({ locale, viewport: { width, height: width > 800 ? 900 : 844 } });
      const page = await context.newPage();
      await page.goto(`${shop.url}products`);
      await launcher(page).click();
      await expect(win(page)).toBeVisible();
      const hello = `Is the rocket in stock ${Date.now()}?`;
      await chat(page).locator('.composer textarea').fill(hello);
      await chat(page).locator('.composer textarea').press('Enter');
      await expect(chat(page).locator('.row.me .bubble', { hasText: hello })).toBeVisible();
      const token = await agent.take(page);
      const draft = 'and the launch pad too';
      await chat(page).locator('.composer textarea').fill(draft);
      // The page keeps the draft once the window has told it (a postMessage across processes); a person
      // does not follow a link within that millisecond, the test waits for it rather than racing it.
      await expect
        .poll(() =>
          page.evaluate(() =>
            Object.keys(localStorage)
              .filter((key) => key.startsWith('parley-ui:'))
              .map((key) => (JSON.parse(localStorage.getItem(key) ?? '{}') as { draft?: string }).draft),
          ),
        )
        .toContain(draft);

      // The next page of the shop: open from its first paint, with the same conversation and the draft.
      await page.goto(`${shop.url}products/rocket`);
      await expect(win(page)).toBeVisible();
      await expect(launcher(page)).toHaveAttribute('aria-expanded', 'true');
      await expect(chat(page).locator('.row.me .bubble', { hasText: hello })).toBeVisible();
      await expect(chat(page).locator('.composer textarea')).toHaveValue(draft);
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}/widget-after-navigation-${lang}-${width}.png` });

      // A second tab of the shop opens with it; closing it there closes it here.
      const other = await context.newPage();
      await other.goto(`${shop.url}cart`);
      await expect(win(other)).toBeVisible();
      await expect(chat(other).locator('.row.me .bubble', { hasText: hello })).toBeVisible();
      // Closed from the window's own button: on a phone the open window covers the launcher.
      await chat(other).locator('.head-button').click();
      await expect(win(other)).toBeHidden();
      await expect(win(page)).toBeHidden();
      await expect(launcher(page)).toHaveAttribute('aria-expanded', 'false');

      // The window is closed: the agent's message shows on the launcher, counted and previewed.
      const reply = 'Yes, two left in stock. Shall I reserve one?';
      await agent.send(token, reply);
      await expect(page.locator('parley-widget .b')).toHaveText('1');
      await expect(page.locator('parley-widget .pv')).toHaveText(reply);
      await expect(page.locator('parley-widget .pv')).toBeVisible();
      await page.screenshot({ path: `${SHOTS}/widget-unread-preview-${lang}-${width}.png` });
      // Reopened from the preview: in both tabs, with the message read.
      await page.locator('parley-widget .pv').click();
      await expect(win(page)).toBeVisible();
      await expect(win(other)).toBeVisible();
      await expect(page.locator('parley-widget .b')).toBeHidden();
      await expect(page.locator('parley-widget .pv')).toBeHidden();
      await expect(chat(page).locator('.row.them .bubble', { hasText: reply })).toBeVisible();
      await context.close();
      await agent.close();
    });
  }
}
