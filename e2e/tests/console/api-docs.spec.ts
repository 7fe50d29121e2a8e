import { expect, test } from '@playwright/test';

test('the API reference renders the OpenAPI document, served by Parley itself, with no CSP or console error', async ({ page }) => {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  const outside: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(new URL(page.url() || 'http://127.0.0.1').origin) && !request.url().startsWith('data:'))
      outside.push(request.url());
  });
  await page.goto('/api/docs');
  await expect(page.getByRole('heading', { name: /Parley API/ })).toBeVisible();
  await expect(page.getByRole('button', { name: /Authorize/ })).toBeVisible();
  await expect(page.locator('[data-path="/api/apiToken/doEdit"]').first()).toBeVisible();
  // The viewer draws what is near the screen: its filter brings the visitor's calls, and one opens.
  await page.getByPlaceholder(/Filter by tag/).fill('visitor');
  const init = page.locator('#operations-visitor-postVisitorInit');
  await expect(init).toBeVisible();
  await init.locator('.opblock-summary-control').click();
  await expect(init).toContainText('Open (no token)');
  await expect(init.getByText('Request body')).toBeVisible();
  expect(outside.filter((url) => !url.startsWith(new URL(page.url()).origin))).toEqual([]);
  expect(problems).toEqual([]);
});
