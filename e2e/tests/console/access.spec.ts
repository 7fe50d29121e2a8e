import { expect, test } from '@playwright/test';
import { apiLogin, openConsole } from '../../support/console';
import { BASE_URL } from '../../support/env';

test('integration: the embed script is shown and copied, the QR code and the preview show', async ({ page, request, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
  await openConsole(page, '/access/access', { token: await apiLogin(request), language: 'en', theme: { layout: 'vertical' } });

  const script = page.getByTestId('access-script');
  await expect(script).toContainText(`<script src="${BASE_URL}/widget.js" async></script>`);
  await script.getByRole('button', { name: 'Copy' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`<script src="${BASE_URL}/widget.js" async></script>`);

  await expect(page.getByTestId('access-chat-url')).toContainText(`${BASE_URL}/chat`);
  const qr = page.getByTestId('access-qr');
  await expect(qr).toBeVisible();
  await expect.poll(() => qr.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBeGreaterThan(0);

  await page.getByTestId('access-preview').click();
  await expect(page.frameLocator('iframe.access-preview').locator('body')).not.toBeEmpty();
});
