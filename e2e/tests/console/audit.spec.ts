import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { apiLogin, createAgent, openConsole } from '../../support/console';

test('audit log: an administrator changes something, finds the row, filters it and exports it', async ({ page, request }) => {
  const token = await apiLogin(request);
  const name = `Audited ${Date.now().toString(36)}`;

  // A change made in the console: a friendly contact added through its form.
  await openConsole(page, '/service/friendly', { token, theme: { layout: 'vertical' }, language: 'en' });
  await page.getByTestId('friendly-create').click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('row').filter({ hasText: name })).toHaveCount(1);
  // And a settings page changed through the API, which names its changed field.
  const saved = await request.post('/api/settings/windowStyle', {
    headers: { Authorization: `Bearer ${token}` },
    data: { title: `Help desk ${name}` },
  });
  expect(saved.ok()).toBe(true);

  // The audit page is in the agents' menu group.
  await page.locator('[data-testid="sider"]').getByRole('menuitem', { name: 'Audit log' }).click();
  const audit = page.getByTestId('audit-page');
  await expect(audit).toBeVisible();
  const row = audit.getByRole('row').filter({ hasText: name });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('admin');
  await expect(row).toContainText('Contact added');
  await expect(row).toContainText('127.0.0.1');
  // Newest first: the settings change made after it is above it.
  const firstRow = audit.locator('.ant-table-tbody tr.ant-table-row').first();
  await expect(firstRow).toContainText('Settings changed');
  await expect(firstRow).toContainText('Window style');
  await expect(firstRow).toContainText('title');

  // Filtered by action, only contact additions remain.
  await audit.getByLabel('Action').click();
  await page.keyboard.type('contact add');
  await page.locator('.ant-select-dropdown').getByTitle('Contact added', { exact: true }).click();
  await audit.getByLabel('Actor').fill('adm');
  await audit.getByRole('button', { name: 'Search' }).click();
  const rows = audit.locator('.ant-table-tbody tr.ant-table-row');
  await expect(rows.first()).toContainText(name);
  const texts = await rows.allTextContents();
  expect(texts.every((text) => text.includes('Contact added'))).toBe(true);
  await audit.getByLabel('Actor').fill('nobody-acts-like-this');
  await audit.getByRole('button', { name: 'Search' }).click();
  await expect(audit.getByRole('row').filter({ hasText: name })).toHaveCount(0);
  await audit.getByLabel('Actor').fill('');
  await audit.getByRole('button', { name: 'Search' }).click();
  await expect(row).toHaveCount(1);

  // The export is the filtered log as CSV.
  const [download] = await Promise.all([page.waitForEvent('download'), audit.getByTestId('audit-export').click()]);
  expect(download.suggestedFilename()).toMatch(/^audit-\d{4}-\d{2}-\d{2}\.csv$/);
  const path = await download.path();
  const csv = readFileSync(path, 'utf8');
  expect(csv).toContain(`friendly:${name}`);
  expect(csv).not.toContain('settings.update');
});

test('audit log: an agent who is not Admin has no entry and cannot open it', async ({ page, request }) => {
  const agent = await createAgent(request);
  const token = await apiLogin(request, agent.username, agent.password);
  await openConsole(page, '/service/audit', { token, theme: { layout: 'vertical' }, language: 'en' });
  await expect(page).toHaveURL(/#\/403$/);
  await expect(page.getByTestId('error-403')).toBeVisible();
  await expect(page.locator('[data-testid="sider"]').getByText('Audit log')).toHaveCount(0);
});
