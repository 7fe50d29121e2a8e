import { createHmac } from 'node:crypto';
import { type APIRequestContext, expect, test } from '@playwright/test';
import { axeFindings } from '../../support/axe';
import { apiLogin, openConsole } from '../../support/console';
import { BASE_URL } from '../../support/env';

/** RFC 6238 as the authenticator apps compute it: HMAC-SHA-1 of the 30-second step, six digits. */
function totp(base32: string, at = Date.now()): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of base32.replace(/[\s=]/g, '').toUpperCase()) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => Number.parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = (mac[mac.length - 1] ?? 0) & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

const step = () => Math.floor(Date.now() / 30_000);

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

/** A fresh account with the Admin role, so that the personal page (Admin-guarded, seed §2) opens for it. */
async function createAdmin(request: APIRequestContext): Promise<{ username: string; password: string }> {
  const headers = { Authorization: `Bearer ${await apiLogin(request)}` };
  const roles = (await (await request.get(`${BASE_URL}/api/role/getList?pageSize=100`, { headers })).json()) as Envelope<{
    list: { id: number; name: string }[];
  }>;
  const roleId = roles.data.list.find((role) => role.name === 'Admin')?.id;
  const username = `mfa${Date.now().toString(36)}`;
  const password = 'mfa-admin-pass-1';
  const saved = await request.post(`${BASE_URL}/api/service/doEdit`, { headers, data: { username, nickname: username, password, roleId } });
  expect(saved.ok()).toBe(true);
  return { username, password };
}

test('two-factor sign-in is set up on the personal page, asked at the next sign-in, and another session is ended', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const account = await createAdmin(request);
  await openConsole(page, '/personal/personal', { token: await apiLogin(request, account.username, account.password), language: 'en' });

  // Set up: the QR code and the key, then a code from the "app" turns it on and shows the recovery codes once.
  const section = page.getByTestId('personal-two-factor');
  await expect(section.getByTestId('mfa-state')).toHaveText('Off');
  await section.getByTestId('mfa-start').click();
  await expect(section.getByTestId('mfa-qr')).toBeVisible();
  const secret = ((await section.getByTestId('mfa-secret').textContent()) ?? '').replace(/\s+/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  const enabledAt = step();
  await section.getByTestId('mfa-enable-code').fill(totp(secret));
  await section.getByTestId('mfa-enable').click();
  const codes = section.getByTestId('mfa-recovery-codes');
  await expect(codes.locator('li')).toHaveCount(10);
  const recovery = (await codes.locator('li').allInnerTexts()).map((code) => code.trim());
  await section.getByTestId('mfa-recovery-done').click();
  await expect(section.getByTestId('mfa-state')).toHaveText('On');
  await expect(section.getByText('Recovery codes left: 10')).toBeVisible();

  // Sign out, then in again: the password alone is not enough any more.
  await page.getByTestId('header-avatar').click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/#\/login/);
  // Signing out starts the page afresh, in the site's default language.
  await page.getByRole('button', { name: 'English' }).click();
  await page.getByTestId('login-username').fill(account.username);
  await page.getByTestId('login-password').fill(account.password);
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('login-mfa')).toBeVisible();
  await expect(page.getByText('Enter the 6-digit code your authenticator app shows')).toBeVisible();
  await page.getByTestId('login-mfa-code').fill('000000');
  await page.getByTestId('login-mfa-submit').click();
  await expect(page.locator('.ant-message-notice').filter({ hasText: 'Wrong verification code' })).toBeVisible();
  // The code that turned it on was taken: the next one comes with the app's next 30-second step.
  await expect.poll(step, { timeout: 35_000, intervals: [500] }).toBeGreaterThan(enabledAt);
  await page.getByTestId('login-mfa-code').fill(totp(secret));
  await page.getByTestId('login-mfa-submit').click();
  await expect(page.getByTestId('header-avatar')).toBeVisible();

  // Another browser signs in with a recovery code; this one lists it and ends it.
  const first = (await (
    await request.post(`${BASE_URL}/api/login`, {
      data: account,
      headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' },
    })
  ).json()) as Envelope<{ ticket: string }>;
  const other = (await (
    await request.post(`${BASE_URL}/api/login/mfa`, {
      data: { ticket: first.data.ticket, code: recovery[0] },
      headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' },
    })
  ).json()) as Envelope<{ token: string }>;
  expect(other.code).toBe(200);

  // Signing in led back to the personal page, opened before that other sign-in: read it afresh.
  await page.goto('/#/personal/personal');
  await page.reload();
  const sessions = page.getByTestId('personal-sessions');
  const firefox = sessions.getByTestId('session-row').filter({ hasText: 'Firefox 128 · Linux' });
  await expect(firefox).toBeVisible();
  await expect(sessions.getByTestId('session-row').first()).toContainText('This browser');
  await firefox.getByTestId('session-end').click();
  await page.locator('.ant-popconfirm').getByRole('button', { name: 'End' }).click();
  await expect(page.locator('.ant-message-notice').filter({ hasText: 'Session ended' })).toBeVisible();
  await expect(firefox).toBeHidden();
  const ended = await request.get(`${BASE_URL}/api/userInfo`, { headers: { Authorization: `Bearer ${other.data.token}` } });
  expect(((await ended.json()) as Envelope<unknown>).code).toBe(401);
  await expect(page.getByTestId('personal-two-factor').getByText('Recovery codes left: 9')).toBeVisible();
});

test('a11y: the login code step and the personal page’s sections have no critical nor serious axe findings', async ({ page, request }) => {
  // As the a11y suite: colour contrast included.
  const violations = () => axeFindings(page);

  const account = await createAdmin(request);
  const token = await apiLogin(request, account.username, account.password);
  await openConsole(page, '/personal/personal', { token, language: 'en' });
  await page.getByTestId('mfa-start').click();
  await expect(page.getByTestId('mfa-qr')).toBeVisible();
  await expect(page.getByTestId('session-row').first()).toBeVisible();
  expect(await violations()).toEqual([]);

  const secret = ((await page.getByTestId('mfa-secret').textContent()) ?? '').replace(/\s+/g, '');
  await page.getByTestId('mfa-enable-code').fill(totp(secret));
  await page.getByTestId('mfa-enable').click();
  await expect(page.getByTestId('mfa-recovery-codes')).toBeVisible();
  expect(await violations()).toEqual([]);

  await openConsole(page, '/login', { language: 'en' });
  await page.getByTestId('login-username').fill(account.username);
  await page.getByTestId('login-password').fill(account.password);
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('login-mfa')).toBeVisible();
  expect(await violations()).toEqual([]);
});
