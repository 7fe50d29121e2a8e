import { type APIRequestContext, expect, type Locator, type Page, test } from '@playwright/test';
import { apiLogin, openConsole } from '../../support/console';

interface Envelope<T> {
  data: T;
}

/** What the bell should say: every unread letter once, and each notice that is not the letters one. */
async function expectedBell(request: APIRequestContext, token: string): Promise<number> {
  const headers = { Authorization: `Bearer ${token}` };
  const unread = ((await (await request.get('/api/letter/unreadCount', { headers })).json()) as Envelope<number>).data;
  const notices = ((await (await request.get('/api/notice/getList', { headers })).json()) as Envelope<{ list: { kind: string }[] }>).data;
  return unread + notices.list.filter((notice) => notice.kind !== 'letter').length;
}

async function shownCount(badge: Locator): Promise<number> {
  const count = badge.locator('.ant-badge-count');
  if ((await count.count()) === 0) return 0;
  return Number((await count.getAttribute('title')) ?? (await count.textContent()));
}

async function choose(page: Page, label: string, option: string): Promise<void> {
  await page.getByLabel(label, { exact: true }).click();
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: option }).click();
}

test('letters: a new letter raises the bell at once; the inbox reads, handles with a note, filters by state and deletes', async ({
  page,
  request,
}) => {
  const token = await apiLogin(request);
  const name = `Letter ${Date.now().toString(36)}`;
  await openConsole(page, '/history/letter', { token, theme: { layout: 'vertical' }, language: 'en' });
  await expect(page.getByTestId('letter-page')).toBeVisible();
  await expect(page.getByRole('table')).toBeVisible();
  const bell = page.locator('.ant-badge').filter({ has: page.getByTestId('header-notice') });
  const menuBadge = page.locator('.menu-label-badge');

  const left = await request.post('/api/visitor/letter', {
    data: { name, phone: '+1 808 555 0100', content: 'Please call me back about the order' },
  });
  expect(left.ok()).toBe(true);

  // No reload: the socket's 8012 brings the row, the bell and the menu badge up to date.
  const inbox = page.getByTestId('letter-page');
  const row = inbox.getByRole('row').filter({ hasText: name });
  await expect(row).toContainText('Unread');
  await expect.poll(async () => (await shownCount(bell)) === (await expectedBell(request, token))).toBe(true);
  await expect(menuBadge).toBeVisible();

  // Opening the letter reads it.
  await row.getByRole('button', { name: 'Open' }).click();
  const drawer = page.getByRole('dialog');
  await expect(drawer).toContainText('Please call me back about the order');
  await expect(drawer).toContainText('+1 808 555 0100');
  await expect(row).toContainText('Read');

  // Handled, with a note.
  await drawer.getByLabel('Handled', { exact: true }).click();
  await drawer.getByLabel('Note', { exact: true }).fill('Called back, order confirmed');
  await drawer.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('.ant-message-notice').filter({ hasText: 'Saved' })).toBeVisible();
  await expect(row).toContainText('Handled');
  // Saving closes the drawer, which hands the focus back to the row when it has gone: wait for that.
  await expect(drawer).toBeHidden();
  await expect.poll(async () => (await shownCount(bell)) === (await expectedBell(request, token))).toBe(true);

  // The state filter keeps it among the handled letters and out of the unread ones.
  await choose(page, 'State', 'Unread');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(inbox.getByRole('row').filter({ hasText: name })).toHaveCount(0);
  await choose(page, 'State', 'Handled');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByRole('dialog').getByLabel('Note', { exact: true })).toHaveValue('Called back, order confirmed');
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

  await row.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(page.locator('.ant-message-notice').filter({ hasText: 'Deleted' })).toBeVisible();
  await expect(inbox.getByRole('row').filter({ hasText: name })).toHaveCount(0);
});
