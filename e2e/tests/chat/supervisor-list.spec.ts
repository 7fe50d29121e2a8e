import { mkdirSync } from 'node:fs';
import { type APIRequestContext, expect, test } from '@playwright/test';
import { onlineAgent } from '../../support/agent';
import { apiLogin, LANGUAGE_KEY, openConsole } from '../../support/console';
import { BASE_URL } from '../../support/env';
import { type Shop, startShop } from '../../support/shop';

// A supervisor's workbench lists every conversation: another agent's shows what was last said in it, and
// its counts, as they change, without a reload.

const SHOTS = process.env.SHOTS_DIR ?? 'test-results/shots';
let shop: Shop;
test.beforeAll(async () => {
  shop = await startShop();
});
test.afterAll(() => shop.close());

async function api<T>(request: APIRequestContext, token: string, path: string, data?: unknown): Promise<T> {
  const headers = { Authorization: `Bearer ${token}` };
  const response =
    data === undefined ? await request.get(`${BASE_URL}${path}`, { headers }) : await request.post(`${BASE_URL}${path}`, { headers, data });
  const body = (await response.json()) as { code: number; msg: string; data: T };
  if (body.code !== 200) throw new Error(`${path}: ${body.code} ${body.msg}`);
  return body.data;
}

test('a supervisor’s list shows another agent’s conversation with its last message and counts', async ({ browser, request }) => {
  // A supervisor holds setPermissions:service; hidden, so that no visitor is routed to it.
  const admin = await apiLogin(request);
  const stamp = Date.now().toString(36);
  const role = await api<{ id: number }>(request, admin, '/api/role/doEdit', {
    name: `List supervisor ${stamp}`,
    permissions: ['setPermissions:service'],
  });
  const username = `lsup${stamp}`;
  await api(request, admin, '/api/service/doEdit', { username, nickname: username, password: 'sup-pass-123', roleId: role.id });
  const supervisorToken = await apiLogin(request, username, 'sup-pass-123');
  await api(request, supervisorToken, '/api/index/state', { state: '1' });
  const context = await browser.newContext({ locale: 'en-US' });
  const supervisor = await context.newPage();
  await openConsole(supervisor, '/workbench/workbench', { token: supervisorToken, language: 'en' });
  await expect(supervisor.getByTestId('wb-connection')).toHaveAttribute('data-status', 'open');

  const agent = await onlineAgent(browser, request);
  const visitorContext = await browser.newContext({ locale: 'en-US' });
  const visitor = await visitorContext.newPage();
  await visitor.goto(shop.url);
  await visitor.locator('parley-widget button.l').click();
  const hello = `Do you ship to the Moon ${stamp}?`;
  const box = visitor.frameLocator('parley-widget iframe').locator('.composer textarea');
  await box.fill(hello);
  await box.press('Enter');
  const token = await agent.take(visitor);
  const line = supervisor.locator(`[data-testid="wb-visitor"][data-token="${token}"]`);
  await expect(line).toHaveAttribute('data-state', 'current');

  // Said after the agent took it: the supervisor's line follows.
  const reply = `Only on Tuesdays ${stamp}`;
  await agent.send(token, reply);
  await expect(line.locator('.wb-visitor-preview')).toContainText(reply);
  await expect(line.locator('.wb-counts')).toHaveText('1/1');

  // Read again from the server (a reload), in both languages and on a phone: the same line.
  mkdirSync(SHOTS, { recursive: true });
  for (const language of ['en', 'zh'] as const) {
    for (const width of [1440, 390]) {
      await supervisor.setViewportSize({ width, height: width > 800 ? 900 : 844 });
      await supervisor.evaluate(([key, value]) => localStorage.setItem(key, value), [LANGUAGE_KEY, language] as const);
      await supervisor.reload();
      await expect(line.locator('.wb-visitor-preview')).toContainText(reply);
      await expect(line.locator('.wb-counts')).toHaveText('1/1');
      await supervisor.screenshot({ path: `${SHOTS}/workbench-supervisor-list-${language}-${width}.png` });
    }
  }
  await visitorContext.close();
  await context.close();
  await agent.close();
});
