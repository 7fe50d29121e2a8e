import { expect, test } from '@playwright/test';
import { apiLogin, openConsole } from '../../support/console';
import { BASE_URL } from '../../support/env';

test('integration: the embed script is shown and copied, the QR code and the preview show', async ({ page, request, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
  await openConsole(page, '/access/access', { token: await apiLogin(request), language: 'en', theme: { layout: 'vertical' } });

  const script = page.getByTestId('access-script');
  await expect(script).toContainText(`<script src="${BASE_URL}/widget.js" async></script>`);
  await script.getByRole('button', { name: 'Copy' }).click();
  await expect
    .poll(() => page.evaluate(() => navigator.clipboard.readText()))
    .toBe(
      `<script>window.Parley=window.Parley||function(){(Parley.q=Parley.q||[]).push(arguments)}</script>\n<script src="${BASE_URL}/widget.js" async></script>`,
    );

  await expect(page.getByTestId('access-chat-url')).toContainText(`${BASE_URL}/chat`);
  const qr = page.getByTestId('access-qr');
  await expect(qr).toBeVisible();
  await expect.poll(() => qr.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBeGreaterThan(0);

  await page.getByTestId('access-preview').click();
  await expect(page.frameLocator('iframe.access-preview').locator('body')).not.toBeEmpty();
});

test('integration: an API token is made with chosen permissions, shown once, works over HTTP, and stops when revoked', async ({
  page,
  request,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
  await openConsole(page, '/access/access', { token: await apiLogin(request), language: 'en', theme: { layout: 'vertical' } });
  const name = `Nightly ratings ${Date.now()}`;

  await page.getByTestId('api-token-new').click();
  const dialog = page.getByRole('dialog', { name: 'New API token' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByLabel('View statistics').check();
  // What the token may call is read from the server's routes: the statistics calls appear once granted.
  await dialog.getByText(/Calls it may make/).click();
  await expect(dialog.getByTestId('api-token-calls')).toContainText('GET /api/census/service');
  await dialog.getByRole('button', { name: 'Create' }).click();

  const secret = page.getByTestId('api-token-secret');
  await expect(secret).toContainText('pat_');
  await secret.getByRole('button', { name: 'Copy' }).click();
  const token = await page.evaluate(() => navigator.clipboard.readText());
  expect(token).toMatch(/^pat_/);
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByText(token)).toHaveCount(0);

  const row = page.getByTestId('api-token-row').filter({ hasText: name });
  await expect(row).toContainText('View statistics');
  await expect(row).toContainText('Never used');

  const headers = { authorization: `Bearer ${token}` };
  expect((await request.get(`${BASE_URL}/api/census/service?kind=talk`, { headers })).status()).toBe(200);
  expect((await request.get(`${BASE_URL}/api/service/getList`, { headers })).status()).toBe(403);
  await page.reload();
  await expect(row).toContainText('Last used');

  await row.getByRole('button', { name: `Revoke the token ${name}` }).click();
  await page.getByRole('tooltip').getByRole('button', { name: 'Revoke' }).click();
  await expect(row).toHaveCount(0);
  expect((await request.get(`${BASE_URL}/api/census/service?kind=talk`, { headers })).status()).toBe(401);
});
