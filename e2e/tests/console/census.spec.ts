import { readFileSync } from 'node:fs';
import { CENSUS_DIMS, CENSUS_SERVICE_KINDS, CENSUS_TALK_DIMS } from '@parley/protocol';
import { type APIRequestContext, expect, type Locator, type Page, test } from '@playwright/test';
import { apiLogin, openConsole } from '../../support/console';

interface Envelope<T> {
  code: number;
  data: T;
}

const tag = Date.now().toString(36);
const keyword = `parley${tag}`;
// Markup in a visitor's words must reach the screen as the characters typed.
const comment = `Quick answer <b>${tag}</b>`;
let token = '';
let agentName = '';

/** A visitor from a Baidu search who talks with the administrator and rates the conversation four stars, with a comment. */
async function seedConversation(request: APIRequestContext): Promise<void> {
  const headers = { Authorization: `Bearer ${token}` };
  const init = (await (
    await request.post('/api/visitor/init', {
      data: { url: 'https://shop.example/pricing', title: 'Pricing', referrer: `https://www.baidu.com/s?wd=${keyword}` },
    })
  ).json()) as Envelope<{ YQToken: string; id: string }>;
  const { YQToken: credential, id } = init.data;
  expect(
    (await request.post('/api/visitor/message', { data: { YQToken: credential, msg: 'How much is it?', onlyID: `census-${tag}-1` } })).ok(),
  ).toBe(true);
  expect((await request.post('/api/talk/accept', { headers, data: { YQToken: id } })).ok()).toBe(true);
  expect(
    (await request.post('/api/talk/send', { headers, data: { YQToken: id, msg: 'Ten a month.', onlyID: `census-${tag}-2` } })).ok(),
  ).toBe(true);
  expect((await request.post('/api/talk/end', { headers, data: { YQToken: id } })).ok()).toBe(true);
  expect((await request.post('/api/visitor/rate', { data: { YQToken: credential, score: 4, comment } })).ok()).toBe(true);
}

test.beforeAll(async ({ request }) => {
  token = await apiLogin(request);
  await seedConversation(request);
  const talk = (await (
    await request.get('/api/census/service?kind=talk', { headers: { Authorization: `Bearer ${token}` } })
  ).json()) as Envelope<{ list: { nickname: string; conversations: number }[] }>;
  agentName = talk.data.list.find((row) => row.conversations > 0)?.nickname ?? '';
  expect(agentName).not.toBe('');
});

/** What each analysis page must show once drawn: a word inside its chart and one in its table. */
function expectations(): { path: string; page: string; chart: string; table: string }[] {
  const byDim: Record<(typeof CENSUS_DIMS)[number], string> = {
    source: 'www.baidu.com',
    engine: 'Baidu',
    area: 'Unknown region',
    keyword,
    platform: '',
  };
  return [
    ...CENSUS_DIMS.flatMap((dim) => [
      { path: `/census/flow/${dim}`, page: `census-flow-${dim}`, chart: byDim[dim], table: byDim[dim] },
      { path: `/census/talk/${dim}`, page: `census-talk-${dim}`, chart: byDim[dim], table: byDim[dim] },
    ]),
    ...CENSUS_SERVICE_KINDS.map((kind) => ({
      path: `/census/service/${kind}`,
      page: `census-service-${kind}`,
      chart: kind === 'evaluate' ? '4-star' : agentName,
      table: agentName,
    })),
  ];
}

/** A chart is drawn when its SVG holds shapes; `word` is a label it must have drawn. */
async function expectDrawn(scope: Page | Locator, testId: string, word: string): Promise<void> {
  const chart = scope.getByTestId(testId);
  await expect(chart.locator('svg path').first()).toBeAttached();
  if (word) await expect(chart.locator('svg')).toContainText(word);
}

test('the statistics overview shows the figures of the range and links to every analysis page', async ({ page }) => {
  await openConsole(page, '/census/census', { token, language: 'en', theme: { layout: 'vertical' } });
  const overview = page.getByTestId('census-overview');
  await expect(overview.getByTestId('kpi-conversations')).toContainText('Today:');
  await expect(overview.getByTestId('kpi-conversations').locator('.ant-statistic-content')).not.toHaveText('0');
  await expectDrawn(overview, 'census-chart', 'Visitors');
  // Traffic by each dimension, conversations by each (labels too), and each service page.
  await expect(overview.locator('.census-links a')).toHaveCount(CENSUS_DIMS.length + CENSUS_TALK_DIMS.length + CENSUS_SERVICE_KINDS.length);
  await overview.getByRole('link', { name: 'Traffic by search engine' }).click();
  await expect(page.getByTestId('census-flow-engine')).toBeVisible();
});

test('every analysis page draws its chart and lists its rows', async ({ page }) => {
  test.setTimeout(120_000);
  await openConsole(page, '/census/census', { token, language: 'en', theme: { layout: 'vertical' } });
  for (const { path, page: testId, chart, table } of expectations()) {
    await test.step(path, async () => {
      await page.goto(`/#${path}`);
      // Pages opened before stay in their tabs (keep-alive): look inside the one just opened.
      const shown = page.getByTestId(testId);
      await expect(shown).toBeVisible();
      await expectDrawn(shown, 'census-chart', chart);
      const rows = shown.getByTestId('census-table').locator('tbody tr.ant-table-row');
      await expect(rows.first()).toBeVisible();
      if (table) await expect(shown.getByTestId('census-table')).toContainText(table);
    });
  }
});

test('a preset changes the range, and the page exports its rows as CSV', async ({ page }) => {
  await openConsole(page, '/census/flow/keyword', { token, language: 'en', theme: { layout: 'vertical' } });
  const table = page.getByTestId('census-table');
  await expect(table).toContainText(keyword);
  // Everything this run made happened today: yesterday has nothing of it.
  await page.getByTestId('census-range').getByText('Yesterday', { exact: true }).click();
  await expect(table).not.toContainText(keyword);
  await page.getByTestId('census-range').getByText('7 days', { exact: true }).click();
  await expect(table).toContainText(keyword);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('census-export').click()]);
  expect(download.suggestedFilename()).toMatch(/^flow-keyword-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
  const path = await download.path();
  expect(readFileSync(path, 'utf8')).toContain(keyword);
});

test('the ratings page lists the visitors’ comments as text, by agent, each opening its conversation', async ({ page }) => {
  await openConsole(page, '/census/service/evaluate', { token, language: 'en', theme: { layout: 'vertical' } });
  const shown = page.getByTestId('census-service-evaluate');
  const item = shown.getByTestId('census-comment').filter({ hasText: comment });
  await expect(item).toBeVisible();
  await expect(item.locator('b')).toHaveCount(0);
  await expect(item).toContainText(agentName);
  await expect(item.getByRole('list', { name: '4-star' })).toBeVisible();

  await shown.getByTestId('census-comments-agent').click();
  await page.locator('.ant-select-dropdown').getByTitle(agentName, { exact: true }).click();
  await expect(item).toBeVisible();

  await item.getByRole('link', { name: 'View conversation' }).click();
  const detail = page.getByTestId('history-detail');
  await expect(detail).toBeVisible();
  await expect(detail).toContainText(comment);
});
