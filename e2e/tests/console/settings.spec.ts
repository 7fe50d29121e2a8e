import { SETTINGS_PAGES as PAGES } from '@parley/protocol';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { apiLogin, createAgent, openConsole } from '../../support/console';
import { BASE_URL } from '../../support/env';

const theme = { layout: 'vertical' };

async function stored(request: APIRequestContext, token: string, page: string): Promise<Record<string, unknown>> {
  const response = await request.get(`${BASE_URL}/api/settings/${page}`, { headers: { Authorization: `Bearer ${token}` } });
  return ((await response.json()) as { data: Record<string, unknown> }).data;
}

/** Puts a page back as it was, so that the widget suites see the settings they expect. */
async function restore(request: APIRequestContext, token: string, page: string, value: Record<string, unknown>): Promise<void> {
  const response = await request.post(`${BASE_URL}/api/settings/${page}`, { headers: { Authorization: `Bearer ${token}` }, data: value });
  expect(response.ok()).toBe(true);
}

async function save(page: Page): Promise<void> {
  await page.getByTestId('settings-save').click();
  await expect(page.locator('.ant-message-notice').filter({ hasText: '保存成功' })).toBeVisible();
}

for (const name of PAGES) {
  test(`settings: the ${name} page draws its form from the stored values`, async ({ page, request }) => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await openConsole(page, `/system/${name}`, { token: await apiLogin(request), theme });
    await expect(page.getByTestId(`settings-${name}`)).toBeVisible();
    await expect(page.getByTestId('settings-form')).toBeVisible();
    await expect(page.getByTestId('settings-save')).toBeEnabled();
    expect(errors).toEqual([]);
  });
}

test('settings: the launcher colour is saved and kept after a reload, and the preview follows it', async ({ page, request }) => {
  const token = await apiLogin(request);
  const before = await stored(request, token, 'takeIcon');
  try {
    await openConsole(page, '/system/takeIcon', { token, theme });
    await page.getByTestId('setting-pc.color').click();
    const hex = page.locator('.ant-color-picker-hex-input input');
    await hex.fill('aa3366');
    await hex.press('Enter');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('preview-launcher').first()).toHaveCSS('background-color', 'rgb(170, 51, 102)');
    await save(page);
    await page.reload();
    await expect(page.getByTestId('setting-pc.color')).toContainText('#AA3366', { ignoreCase: true });
    expect((await stored(request, token, 'takeIcon')).pc).toMatchObject({ color: '#aa3366' });
  } finally {
    await restore(request, token, 'takeIcon', before);
  }
});

test('settings: the welcome message is saved and kept after a reload', async ({ page, request }) => {
  const token = await apiLogin(request);
  const before = await stored(request, token, 'windowSetting');
  const welcome = `Welcome ${Date.now().toString(36)}`;
  try {
    await openConsole(page, '/system/windowSetting', { token, theme });
    await page.getByTestId('setting-welcome').fill(welcome);
    await expect(page.getByTestId('preview-welcome')).toHaveText(welcome);
    await save(page);
    await page.reload();
    await expect(page.getByTestId('setting-welcome')).toHaveValue(welcome);
  } finally {
    await restore(request, token, 'windowSetting', before);
  }
});

test('settings: a refused value shows the field its message and is not sent', async ({ page, request }) => {
  const token = await apiLogin(request);
  await openConsole(page, '/system/windowSetting', { token, theme });
  const maxLength = page.getByTestId('setting-maxLength');
  await maxLength.fill('0');
  await page.getByTestId('settings-save').click();
  await expect(page.getByText('单条消息最大长度不能小于 1')).toBeVisible();
  await expect(page.locator('.ant-message-notice').filter({ hasText: '保存成功' })).toHaveCount(0);
  expect((await stored(request, token, 'windowSetting')).maxLength).not.toBe(0);
});

test('settings: a plain agent is turned away from every settings page', async ({ page, request }) => {
  const agent = await createAgent(request);
  const token = await apiLogin(request, agent.username, agent.password);
  const answer = await request.get(`${BASE_URL}/api/settings/takeIcon`, { headers: { Authorization: `Bearer ${token}` } });
  expect(((await answer.json()) as { code: number }).code).toBe(403);
  await openConsole(page, '/system/takeIcon', { token, theme });
  await expect(page).toHaveURL(/#\/403$/);
  await expect(page.getByTestId('error-403')).toBeVisible();
});
