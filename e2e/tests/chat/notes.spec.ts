import { type APIRequestContext, type Browser, expect, type Page, test } from '@playwright/test';
import { axeFindings } from '../../support/axe';
import { apiLogin, createAgent, openConsole } from '../../support/console';
import { BASE_URL } from '../../support/env';
import { type Shop, startShop } from '../../support/shop';

/*
 * An agent writes an internal note with an @mention in the workbench: the agents see it, the mentioned
 * agent is notified and opens the conversation from the notification, and the visitor's chat window
 * never shows it.
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });
test.use({ locale: 'en-US' });

let shop: Shop;
test.beforeAll(async () => {
  shop = await startShop();
});
test.afterAll(() => shop.close());

const widget = (page: Page) => page.frameLocator('parley-widget iframe');

/** A fresh agent with the workbench open in English; `online` agents are handed visitors. */
async function openWorkbench(browser: Browser, request: APIRequestContext, online: boolean) {
  const { username, password } = await createAgent(request);
  const token = await apiLogin(request, username, password);
  await request.post(`${BASE_URL}/api/index/state`, { headers: { Authorization: `Bearer ${token}` }, data: { state: online ? '0' : '1' } });
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  await openConsole(page, '/workbench/workbench', { token, language: 'en' });
  await expect(page.getByTestId('wb-connection')).toHaveAttribute('data-status', 'open');
  return { username, page, context };
}

test('a note with an @mention reaches the mentioned agent and never the visitor', async ({ browser, request }) => {
  const mate = await openWorkbench(browser, request, false);
  const writer = await openWorkbench(browser, request, true);

  const visitorContext = await browser.newContext({ locale: 'en-US' });
  const visitor = await visitorContext.newPage();
  await visitor.goto(shop.url);
  await visitor.locator('parley-widget button.l').click();
  const hello = `Can I get a refund ${Date.now()}?`;
  const box = widget(visitor).locator('.composer textarea');
  await box.fill(hello);
  await box.press('Enter');

  // The writer opens the conversation and switches the composer to an internal note.
  const item = writer.page.getByTestId('wb-visitor').filter({ hasText: hello });
  await item.click();
  await expect(writer.page.getByTestId('wb-bubble').filter({ hasText: hello })).toBeVisible();
  const accept = writer.page.getByTestId('wb-accept');
  if (await accept.isEnabled()) await accept.click();
  await writer.page.getByTestId('wb-note-mode').click();
  const note = writer.page.getByTestId('wb-note-composer').locator('textarea');
  await note.pressSequentially(`Secret: approve it, @${mate.username.slice(0, 8)}`);
  // `@` offers the agents by login name and nickname.
  await writer.page.getByTestId('wb-mention-option').filter({ hasText: mate.username }).click();
  await note.pressSequentially('please confirm');
  await note.press('Enter');
  const drawn = writer.page.getByTestId('wb-note').filter({ hasText: 'Secret: approve it' });
  await expect(drawn).toBeVisible();
  await expect(drawn).toContainText('Internal note');
  await expect(drawn).toContainText(`@${mate.username}`);
  // The workbench with a live conversation, a note drawn and the note composer open: nothing critical or
  // serious for axe, colour contrast included (the amber send button, the note's own colours).
  await note.fill('draft');
  expect(await axeFindings(writer.page)).toEqual([]);
  await note.fill('');

  // A reply still goes to the visitor; the note does not, now or after a reload.
  await writer.page.locator('.wb-mode').getByText('Reply', { exact: true }).click();
  const input = writer.page.getByTestId('wb-input');
  await input.fill('We are looking into it');
  await input.press('Enter');
  await expect(widget(visitor).locator('.bubble', { hasText: 'We are looking into it' })).toBeVisible();
  await expect(widget(visitor).locator('body')).not.toContainText('Secret');
  await visitor.reload();
  await expect(widget(visitor).locator('.bubble', { hasText: 'We are looking into it' })).toBeVisible();
  await expect(widget(visitor).locator('body')).not.toContainText('Secret');

  // The mentioned agent is notified and opens the conversation, note included, from the notification.
  const notification = mate.page.locator('.ant-notification-notice').filter({ hasText: 'mentioned you in a note' });
  await expect(notification).toBeVisible();
  await expect(notification).toContainText('Secret: approve it');
  await notification.getByTestId('notification-action').click();
  await expect(mate.page.getByTestId('history-detail')).toBeVisible();
  await expect(mate.page.getByTestId('wb-note').filter({ hasText: 'Secret: approve it' })).toBeVisible();
  await expect(mate.page.getByTestId('wb-bubble').filter({ hasText: hello })).toBeVisible();

  await visitorContext.close();
  await writer.context.close();
  await mate.context.close();
});
