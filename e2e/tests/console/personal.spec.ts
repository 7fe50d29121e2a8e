import { expect, test } from '@playwright/test';
import { apiLogin, createAgent, openConsole } from '../../support/console';
import { BASE_URL } from '../../support/env';

test('an agent changes their nickname, then their password with the old one, and signs in again', async ({ page, request }) => {
  const agent = await createAgent(request);
  await openConsole(page, '/', { token: await apiLogin(request, agent.username, agent.password), language: 'en' });

  // An agent's role may not open the personal page (seed §2): the avatar menu opens the same form in a drawer.
  await page.getByTestId('header-avatar').click();
  await page.getByRole('menuitem', { name: 'Personal centre' }).click();
  const drawer = page.getByRole('dialog');
  await expect(drawer.getByText('Personal settings')).toBeVisible();
  await drawer.getByTestId('personal-nickname').fill('Helpful Hannah');
  await drawer.getByTestId('personal-save').click();
  await expect(page.locator('.ant-message-notice').filter({ hasText: 'Saved' })).toBeVisible();
  await expect(drawer).toBeHidden();

  await page.getByTestId('header-avatar').click();
  await page.getByRole('menuitem', { name: 'Personal centre' }).click();
  await expect(drawer.getByTestId('personal-nickname')).toHaveValue('Helpful Hannah');
  // A wrong current password is refused by the server, naming the field.
  await drawer.getByTestId('personal-password').fill('brand-new-pass-7');
  await drawer.getByTestId('personal-confirm').fill('brand-new-pass-7');
  await drawer.getByTestId('personal-old-password').fill('not-the-password');
  await drawer.getByTestId('personal-save').click();
  await expect(page.locator('.ant-message-notice').filter({ hasText: 'oldPassword' })).toBeVisible();

  await drawer.getByTestId('personal-old-password').fill(agent.password);
  await drawer.getByTestId('personal-save').click();
  await expect(page).toHaveURL(/#\/login/);
  await page.getByTestId('login-username').fill(agent.username);
  await page.getByTestId('login-password').fill('brand-new-pass-7');
  await page.getByTestId('login-submit').click();
  await expect(page.getByTestId('header-avatar')).toBeVisible();

  const refused = await request.post(`${BASE_URL}/api/login`, { data: { username: agent.username, password: agent.password } });
  expect(((await refused.json()) as { code: number }).code).not.toBe(200);
});

test('the administrator edits the profile on the personal page', async ({ page, request }) => {
  await openConsole(page, '/personal/personal', { token: await apiLogin(request), language: 'en', theme: { layout: 'vertical' } });
  const form = page.getByTestId('personal-form');
  await expect(form.getByTestId('personal-nickname')).toHaveValue(/.+/);
  const original = await form.getByTestId('personal-nickname').inputValue();
  await form.getByTestId('personal-nickname').fill('Chief');
  await form.getByTestId('personal-save').click();
  await expect(page.locator('.ant-message-notice').filter({ hasText: 'Saved' })).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('personal-nickname')).toHaveValue('Chief');
  await page.getByTestId('personal-nickname').fill(original);
  await page.getByTestId('personal-save').click();
  await expect(page.locator('.ant-message-notice').filter({ hasText: 'Saved' }).first()).toBeVisible();
});
