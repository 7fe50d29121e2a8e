import { createHash, randomBytes } from 'node:crypto';
import { type APIRequestContext, expect, test } from '@playwright/test';
import { WeChatDouble } from '../../../apps/server/test/wechat-double';
import { apiLogin, createAgent, openConsole } from '../../support/console';
import { BASE_URL, WECHAT_DOUBLE_PORT } from '../../support/env';

/*
 * A WeChat user, pushed by a double of WeChat's API to the server's push URL, chats with an agent in the
 * real console: the agent's reply reaches the double through custom/send, and a reply WeChat refuses
 * (the 48-hour window closed) is marked in the workbench.
 */
test.describe.configure({ mode: 'serial', timeout: 120_000 });
test.use({ locale: 'en-US' });

const TOKEN = 'e2e-wechat-token';
let double: WeChatDouble;

test.beforeAll(async () => {
  double = await WeChatDouble.start(WECHAT_DOUBLE_PORT);
});

test.afterAll(async () => {
  await double.close();
});

async function adminCall(request: APIRequestContext, path: string, data: unknown): Promise<void> {
  const token = await apiLogin(request);
  const response = await request.post(`${BASE_URL}${path}`, { headers: { Authorization: `Bearer ${token}` }, data });
  expect(response.status()).toBe(200);
}

/** A text message as WeChat pushes it, signed with the channel's token. */
async function pushText(request: APIRequestContext, openid: string, content: string): Promise<void> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = String(Math.floor(Math.random() * 1e9));
  const signature = createHash('sha1').update([TOKEN, timestamp, nonce].sort().join('')).digest('hex');
  const msgId = String(Date.now());
  const body = `<xml><ToUserName><![CDATA[gh_e2e]]></ToUserName><FromUserName><![CDATA[${openid}]]></FromUserName><CreateTime>${timestamp}</CreateTime><MsgType><![CDATA[text]]></MsgType><Content><![CDATA[${content}]]></Content><MsgId>${msgId}</MsgId></xml>`;
  const response = await request.post(`${BASE_URL}/wechat/officialAccount?signature=${signature}&timestamp=${timestamp}&nonce=${nonce}`, {
    headers: { 'content-type': 'text/xml' },
    data: body,
  });
  expect(response.status()).toBe(200);
  expect(await response.text()).toBe('success');
}

test('a WeChat user chats with an agent in the workbench; the reply reaches WeChat, a refused one is marked', async ({
  browser,
  request,
}) => {
  await adminCall(request, '/api/settings/weChatSetting', {
    officialAccount: { enabled: true, appId: 'wx-e2e-app', appSecret: 'e2e-secret', token: TOKEN, aesKey: '' },
  });
  const { username, password } = await createAgent(request);
  const agentToken = await apiLogin(request, username, password);
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  await openConsole(page, '/workbench/workbench', { token: agentToken, language: 'en' });
  await expect(page.getByTestId('wb-connection')).toHaveAttribute('data-status', 'open');

  const openid = `oE2E${randomBytes(6).toString('hex')}`;
  const question = `Is my parcel on its way? ${randomBytes(3).toString('hex')}`;
  await pushText(request, openid, question);

  const item = page.getByTestId('wb-visitor').filter({ hasText: question });
  await expect(item).toBeVisible();
  await expect(item).toContainText(`微信用户 ·${openid.slice(-4)}`);
  await item.click();
  await expect(page.getByTestId('wb-bubble').filter({ hasText: question })).toBeVisible();
  const accept = page.getByTestId('wb-accept');
  if (await accept.isEnabled()) await accept.click();
  await expect(page.getByTestId('wb-panel')).toContainText('Official account');

  const answer = 'Yes, it left our warehouse this morning.';
  const input = page.getByTestId('wb-input');
  await input.fill(answer);
  await input.press('Enter');
  await expect(page.locator('.wb-row.me [data-testid="wb-bubble"]', { hasText: answer })).toBeVisible();
  const sent = await double.until(() =>
    double.sent.find((message) => message.body.touser === openid && message.body.text?.content === answer),
  );
  expect(sent.body.msgtype).toBe('text');

  // WeChat refuses the next one: the agent sees why, beside the message and above the composer.
  double.failSends({ errcode: 45015 });
  const late = 'Anything else I can do?';
  await input.fill(late);
  await input.press('Enter');
  await expect(page.getByTestId('wb-delivery-failed')).toContainText('48 hours');
  await expect(page.getByTestId('wb-delivery-banner')).toBeVisible();
  await context.close();
});
