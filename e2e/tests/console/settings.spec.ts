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

test('settings: a region rule picks a province by name from the region tree, and keeps it after a reload', async ({ page, request }) => {
  const token = await apiLogin(request);
  const before = await stored(request, token, 'region');
  try {
    await restore(request, token, 'region', { rules: [] });
    await openConsole(page, '/system/region', { token, theme });
    await page.getByRole('button', { name: '添加地区规则' }).click();
    const picker = page.getByTestId('region-picker');
    await picker.click();
    await page.keyboard.type('广东');
    await page.locator('.ant-select-tree-node-content-wrapper[title="广东省"]').click();
    await page.keyboard.press('Escape');
    await expect(picker).toContainText('广东省');
    // A tip has a text and no agent; the agent appears only for a rule that assigns.
    await expect(page.getByLabel('客服', { exact: true })).toHaveCount(0);
    await page.getByTestId('setting-rules.0.text').fill('广东的访客您好');
    await save(page);
    await page.reload();
    await expect(page.getByTestId('region-picker')).toContainText('广东省');
    expect((await stored(request, token, 'region')).rules).toEqual([{ codes: ['440000'], action: 'tip', text: '广东的访客您好' }]);
  } finally {
    await restore(request, token, 'region', before);
  }
});

test('settings: invitations are limited to chosen weekdays and hours, kept after a reload', async ({ page, request }) => {
  const token = await apiLogin(request);
  const before = await stored(request, token, 'invitationBox');
  try {
    await openConsole(page, '/system/invitationBox', { token, theme, language: 'en' });
    const desktop = page.getByTestId('setting-pc.days');
    await desktop.getByRole('checkbox', { name: 'Monday' }).check();
    await desktop.getByRole('checkbox', { name: 'Wednesday' }).check();
    const from = page.locator('#pc_hours');
    await from.click();
    await from.fill('09:00');
    const to = page.locator('.ant-picker-range').filter({ has: from }).locator('input').nth(1);
    await to.click();
    await to.fill('17:30');
    await page.getByTestId('settings-invitationBox').getByRole('heading', { level: 4 }).click();
    await expect(to).toHaveValue('17:30');
    await page.getByTestId('settings-save').click();
    await expect(page.locator('.ant-message-notice').filter({ hasText: 'Saved' })).toHaveCount(1);
    await page.reload();
    await expect(page.getByTestId('setting-pc.days').getByRole('checkbox', { name: 'Monday' })).toBeChecked();
    await expect(page.getByTestId('setting-pc.days').getByRole('checkbox', { name: 'Tuesday' })).not.toBeChecked();
    await expect(page.locator('#pc_hours')).toHaveValue('09:00');
    const pc = (await stored(request, token, 'invitationBox')).pc as Record<string, unknown>;
    expect(pc.days).toEqual([1, 3]);
    expect(pc.hours).toEqual({ from: '09:00', to: '17:30' });
    expect(((await stored(request, token, 'invitationBox')).mobile as Record<string, unknown>).hours).toBeUndefined();
  } finally {
    await restore(request, token, 'invitationBox', before);
  }
});
