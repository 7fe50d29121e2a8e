import { type APIRequestContext, type Browser, expect, test } from '@playwright/test';
import { apiLogin, createAgent, openConsole } from '../../support/console';
import { BASE_URL } from '../../support/env';
import { type Shop, startShop } from '../../support/shop';

// Conversation labels end to end: an administrator adds a label to the list, an agent puts it on a live
// conversation from the workbench header, and once the conversation ended the history page filtered by
// that label shows it, and not a conversation carrying another label.

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

async function api<T>(request: APIRequestContext, token: string, path: string, data?: unknown): Promise<T> {
  const headers = { Authorization: `Bearer ${token}` };
  const response = data === undefined ? await request.get(path, { headers }) : await request.post(path, { headers, data });
  const body = (await response.json()) as Envelope<T>;
  if (body.code !== 200) throw new Error(`${path}: ${body.code} ${body.msg}`);
  return body.data;
}

let shop: Shop;
test.beforeAll(async () => {
  shop = await startShop();
});
test.afterAll(() => shop.close());

/** A visitor on the shop who opens the chat window and writes; answers the visitor's public id once stored. */
async function visitorSays(browser: Browser, msg: string): Promise<{ id: string; close: () => Promise<void> }> {
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(shop.url);
  await page.locator('parley-widget button.l').click();
  const box = page.frameLocator('parley-widget iframe').locator('.composer textarea');
  await box.fill(msg);
  await box.press('Enter');
  let credential: string | null = null;
  await expect
    .poll(async () => {
      credential = await page.evaluate(() => localStorage.getItem('parley-yq'));
      return credential;
    })
    .toBeTruthy();
  let id: string | undefined;
  await expect
    .poll(async () => {
      const answer = await page.request.get(`${BASE_URL}/api/visitor/messages?YQToken=${credential}`);
      id = ((await answer.json()) as Envelope<{ list: { YQToken: string }[] }>).data.list[0]?.YQToken;
      return id;
    })
    .toBeTruthy();
  return { id: id ?? '', close: () => context.close() };
}

test('an agent labels a live conversation; history filtered by the label finds it, and not another', async ({ page, browser, request }) => {
  const admin = await apiLogin(request);
  const stamp = Date.now().toString(36);
  const wanted = `Refund ${stamp}`;
  const other = `Other ${stamp}`;

  // The administrator adds a label on the management page.
  await openConsole(page, '/service/label', { token: admin, theme: { layout: 'vertical' }, language: 'en' });
  const labels = page.getByTestId('label-page');
  await expect(labels).toBeVisible();
  await page.getByTestId('label-create').click();
  const form = page.getByRole('dialog');
  await form.getByLabel('Name', { exact: true }).fill(wanted);
  await form.getByLabel('Description', { exact: true }).fill('Asked for money back');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(labels.getByRole('row').filter({ hasText: wanted })).toHaveCount(1);
  const otherId = (await api<{ id: number }>(request, admin, '/api/label/doEdit', { name: other, color: '#389e0d' })).id;

  // An agent with the workbench open takes a visitor and labels the conversation from its header.
  // The administrator's console is connected too: hidden, so that the visitor goes to the agent.
  await api(request, admin, '/api/index/state', { state: '1' });
  const { username, password } = await createAgent(request);
  const agent = await apiLogin(request, username, password);
  const agentContext = await browser.newContext({ locale: 'en-US' });
  const workbench = await agentContext.newPage();
  await openConsole(workbench, '/workbench/workbench', { token: agent, language: 'en' });
  await expect(workbench.getByTestId('wb-connection')).toHaveAttribute('data-status', 'open');
  const first = await visitorSays(browser, `My parcel came broken ${stamp}`);
  const labelled = first.id;
  const line = workbench.locator(`[data-testid="wb-visitor"][data-token="${labelled}"]`);
  await line.click();
  if ((await line.getAttribute('data-state')) === 'wait') await workbench.getByTestId('wb-accept').click();
  await expect(line).toHaveAttribute('data-state', 'current');
  const head = workbench.getByTestId('wb-conv-labels');
  await head.getByTestId('wb-labels-add').click();
  // The box is ticked once the server has stored the label.
  const option = workbench.getByTestId('wb-label-picker').getByRole('checkbox', { name: wanted });
  await option.click();
  await expect(option).toBeChecked();
  await expect(head.locator(`[data-testid="label-tag"][data-label="${wanted}"]`)).toBeVisible();
  await workbench.keyboard.press('Escape');
  // The workbench list shows it under the visitor too.
  await expect(line.getByTestId('wb-visitor-labels')).toContainText(wanted);

  // The agent ends the conversation.
  await workbench.getByTestId('wb-end').click();
  await workbench.getByRole('tooltip').getByRole('button', { name: 'End' }).click();
  await expect
    .poll(
      async () =>
        (await api<{ list: { YQToken: string; endedAt: string | null }[] }>(request, admin, '/api/history/getList?pageSize=100')).list.find(
          (c) => c.YQToken === labelled,
        )?.endedAt,
    )
    .toBeTruthy();

  // Another conversation of the same agent carries the other label only.
  const second = await visitorSays(browser, `Just browsing ${stamp}`);
  const unrelated = second.id;
  await expect
    .poll(async () =>
      (await api<{ list: { YQToken: string; state: string }[] }>(request, agent, '/api/talk/userList')).list.some(
        (v) => v.YQToken === unrelated,
      ),
    )
    .toBe(true);
  const waiting = (await api<{ list: { YQToken: string; state: string }[] }>(request, agent, '/api/talk/userList')).list.find(
    (v) => v.YQToken === unrelated,
  );
  if (waiting?.state === 'wait') await api(request, agent, '/api/talk/accept', { YQToken: unrelated });
  await api(request, agent, '/api/talk/labels', { YQToken: unrelated, labelIds: [otherId] });
  await api(request, agent, '/api/talk/end', { YQToken: unrelated });
  await agentContext.close();
  await first.close();
  await second.close();

  // History, filtered by the label: the labelled conversation and nothing else.
  await page.goto('/#/history/history');
  const history = page.getByTestId('history-page');
  await expect(history).toBeVisible();
  await history.getByLabel('Label', { exact: true }).click();
  await page.locator('.ant-select-dropdown:visible').getByTitle(wanted, { exact: true }).click();
  await history.getByRole('button', { name: 'Search' }).click();
  const rows = history.locator('tbody tr.ant-table-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(wanted);
  await expect(rows.first().locator(`[data-testid="label-tag"][data-label="${wanted}"]`)).toBeVisible();
  await expect(history).not.toContainText(other);

  // And by the other label: the other conversation only.
  await history.getByLabel('Label', { exact: true }).click();
  await page.locator('.ant-select-dropdown:visible').getByTitle(other, { exact: true }).click();
  await history.getByRole('button', { name: 'Search' }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(other);
  await expect(history).not.toContainText(wanted);
});
