import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { apiLogin, openConsole } from '../../support/console';

interface Envelope<T> {
  code: number;
  data: T;
}

test('records: find a visitor, note about them, find their conversation in history, export it, erase them', async ({ page, request }) => {
  const token = await apiLogin(request);
  const headers = { Authorization: `Bearer ${token}` };
  const tag = Date.now().toString(36);
  const name = `Quentin ${tag}`;
  const word = `zephyr${tag}`;

  // A visitor chats with the administrator, then leaves their name with a leave-message.
  const init = (await (
    await request.post('/api/visitor/init', {
      data: { url: 'https://shop.example/pricing', title: 'Pricing', referrer: 'https://www.google.com/' },
    })
  ).json()) as Envelope<{ YQToken: string; id: string }>;
  const { YQToken: credential, id } = init.data;
  const said = await request.post('/api/visitor/message', {
    data: { YQToken: credential, msg: `Where is my ${word} order?`, onlyID: `e2e-${tag}-1` },
  });
  expect(said.ok()).toBe(true);
  // Another suite's agent may have been given the visitor first; the administrator reads it either way.
  const accepted = await request.post('/api/talk/accept', { headers, data: { YQToken: id } });
  if (accepted.ok()) {
    const reply = await request.post('/api/talk/send', {
      headers,
      data: { YQToken: id, msg: 'It ships tomorrow.', onlyID: `e2e-${tag}-2` },
    });
    expect(reply.ok()).toBe(true);
  }
  const letter = await request.post('/api/visitor/letter', {
    data: { YQToken: credential, name, email: `${tag}@quentin.example`, content: 'Please mail me the invoice' },
  });
  expect(letter.ok()).toBe(true);

  // The administrator finds the visitor by keyword and opens them.
  await openConsole(page, '/user/user', { token, theme: { layout: 'vertical' }, language: 'en' });
  const visitors = page.getByTestId('visitors-web-page');
  await expect(visitors).toBeVisible();
  await visitors.getByLabel('Keyword', { exact: true }).fill(tag);
  await visitors.getByRole('button', { name: 'Search' }).click();
  const row = visitors.getByRole('row').filter({ hasText: name });
  await expect(row).toHaveCount(1);
  await expect(visitors.getByRole('row')).toHaveCount(2);
  await expect(row).toContainText('www.google.com');
  // Where the keyword was found is marked.
  await expect(row.locator('mark.found')).toHaveText(tag);
  await row.getByRole('link', { name }).click();

  const detail = page.getByTestId('visitor-detail');
  await expect(detail).toContainText(name);
  await expect(detail.getByTestId('visits')).toContainText('https://shop.example/pricing');
  await detail.getByTestId('visitor-conversations').locator('.ant-collapse-header').first().click();
  await expect(detail.getByTestId('transcript')).toContainText(`Where is my ${word} order?`);

  // Notes: remark and tags, saved and shown in the profile.
  await detail.getByLabel('Remark', { exact: true }).fill('Wants a paper invoice');
  const tags = detail.getByLabel('Tags', { exact: true });
  await tags.fill('invoice');
  await tags.press('Enter');
  await tags.fill('vip');
  await tags.press('Enter');
  await detail.getByTestId('visitor-save').click();
  await expect(page.getByText('Saved')).toBeVisible();
  const profile = detail.locator('.ant-descriptions').first();
  await expect(profile).toContainText('invoice');
  await expect(profile).toContainText('vip');
  const saved = (await (await request.get(`/api/user/detail?YQToken=${id}`, { headers })).json()) as Envelope<{
    visitor: { remark: string; tags: string[] };
  }>;
  expect(saved.data.visitor).toMatchObject({ remark: 'Wants a paper invoice', tags: ['invoice', 'vip'] });

  // History: the conversation is found by a word of its message, and opens.
  await page.goto('/#/history/history');
  const historyPage = page.getByTestId('history-page');
  await expect(historyPage).toBeVisible();
  await historyPage.getByLabel('Keyword', { exact: true }).fill(word);
  await historyPage.getByRole('button', { name: 'Search' }).click();
  const conversation = historyPage.getByRole('row').filter({ hasText: name });
  await expect(conversation).toHaveCount(1);
  await expect(historyPage.getByRole('row')).toHaveCount(2);

  // The export downloads the filtered list as CSV; with no day picked, the last 366 days up to today.
  const downloading = page.waitForEvent('download');
  const asked = page.waitForRequest((sent) => sent.url().includes('/api/history/export'));
  await historyPage.getByTestId('history-export').click();
  const download = await downloading;
  const range = new URL((await asked).url()).searchParams;
  const today = new Date().toLocaleDateString('en-CA');
  expect(range.get('to')).toBe(today);
  expect((Date.parse(today) - Date.parse(range.get('from') ?? '')) / 86_400_000).toBe(365);
  expect(download.suggestedFilename()).toMatch(/^history-\d{4}-\d{2}-\d{2}\.csv$/);
  const path = await download.path();
  const bytes = readFileSync(path);
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const lines = bytes.subarray(3).toString('utf8').trim().split('\n');
  expect(lines[0]).toContain('Conversation,Visitor,Visitor id');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain(name);
  expect(lines[1]).toContain(id);

  // Days picked over more than one export covers: the button says why, and asks nothing of the server.
  await historyPage.getByPlaceholder('Start date').fill('2020-01-01');
  await historyPage.getByPlaceholder('Start date').press('Enter');
  await historyPage.getByPlaceholder('End date').fill(today);
  await historyPage.getByPlaceholder('End date').press('Enter');
  await historyPage.getByRole('button', { name: 'Search' }).click();
  let exports = 0;
  page.on('request', (sent) => {
    if (sent.url().includes('/api/history/export')) exports += 1;
  });
  await historyPage.getByTestId('history-export').hover();
  await expect(page.getByRole('tooltip')).toHaveText('One export covers at most 366 days: narrow the dates');
  await historyPage.getByTestId('history-export').click();
  await expect(page.locator('.ant-message')).toContainText('One export covers at most 366 days: narrow the dates');
  expect(exports).toBe(0);

  await conversation.getByRole('link', { name }).click();
  const opened = page.getByTestId('history-detail');
  await expect(opened.getByTestId('transcript')).toContainText(`Where is my ${word} order?`);
  // The conversation opened from a search shows the messages that hold the keyword, the keyword marked.
  const matches = opened.getByTestId('history-matches');
  await expect(matches).toContainText(`Messages containing “${word}” (1)`);
  await expect(matches.locator('mark.found')).toHaveText(word);
  await expect(opened.getByTestId('visits')).toContainText('https://shop.example/pricing');

  // Erase: the visitor link leads back to the visitor, whose erasure is confirmed and cannot be undone.
  await opened.getByRole('link', { name }).click();
  const again = page.getByTestId('visitor-detail');
  await again.getByTestId('visitor-erase').click();
  const confirm = page.getByRole('tooltip').filter({ hasText: 'cannot be undone' });
  await expect(confirm).toBeVisible();
  await confirm.getByRole('button', { name: 'Erase for good' }).click();
  await expect(page.getByText('The visitor was erased')).toBeVisible();
  await expect(visitors).toBeVisible();
  const gone = await request.get(`/api/user/detail?YQToken=${id}`, { headers });
  expect(gone.status()).toBe(404);
  const history = (await (await request.get(`/api/history/getList?keyword=${word}`, { headers })).json()) as Envelope<{ total: number }>;
  expect(history.data.total).toBe(0);
});
