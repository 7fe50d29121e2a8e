import { type APIRequestContext, type Browser, expect, type Page } from '@playwright/test';
import { apiLogin, createAgent } from './console';
import { BASE_URL } from './env';

export interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

interface VisitorRow {
  YQToken: string;
  state: string;
}

/** An agent that is online with a connected socket, as routing requires, held open in a page of its own. */
export async function onlineAgent(browser: Browser, request: APIRequestContext, base = BASE_URL) {
  const { username, password } = await createAgent(request, base);
  const token = await apiLogin(request, username, password, base);
  const headers = { Authorization: `Bearer ${token}` };
  const index = (await (await request.get(`${base}/api/index`, { headers })).json()) as Envelope<{ info: { uuid: string } }>;
  const context = await browser.newContext();
  const socketPage = await context.newPage();
  await socketPage.goto(`${base}/api/publicKey`);
  await socketPage.evaluate(
    ([url, uuid]) =>
      new Promise<void>((resolve) => {
        const socket = new WebSocket(url);
        socket.onmessage = (event) => {
          if (event.data === 'Y') return;
          if (JSON.parse(event.data).code === '0000') {
            socket.send(JSON.stringify({ code: '5000', type: 'service', uuid }));
            setInterval(() => socket.send('Y'), 5000);
            resolve();
          }
        };
      }),
    [`${base.replace('http', 'ws')}/ws/agent?token=${token}`, index.data.info.uuid] as const,
  );
  await request.post(`${base}/api/index/state`, { headers, data: { state: '0' } });
  const call = async <T>(path: string, data?: unknown): Promise<T> => {
    const response =
      data === undefined ? await request.get(`${base}${path}`, { headers }) : await request.post(`${base}${path}`, { headers, data });
    const body = (await response.json()) as Envelope<T>;
    if (body.code !== 200) throw new Error(`${path}: ${body.code} ${body.msg}`);
    return body.data;
  };
  return {
    call,
    /** The public id of this page's visitor (the loader keeps its credential on the shop's side too), accepted when it waits. */
    async take(page: Page): Promise<string> {
      let token: string | null = null;
      await expect
        .poll(async () => {
          token = await page.evaluate(() => localStorage.getItem('parley-yq'));
          return token;
        })
        .toBeTruthy();
      if (!token) throw new Error('no visitor token');
      // The page keeps the visitor's credential; agents know the visitor by its public id, which its
      // messages carry.
      const credential: string = token;
      let YQToken: string | undefined;
      await expect
        .poll(async () => {
          YQToken = (await call<{ list: { YQToken: string }[] }>(`/api/visitor/messages?YQToken=${credential}`)).list[0]?.YQToken;
          return YQToken;
        })
        .toBeTruthy();
      if (!YQToken) throw new Error('no message of the visitor');
      const row = (await call<{ list: VisitorRow[] }>('/api/talk/userList')).list.find((visitor) => visitor.YQToken === YQToken);
      if (row?.state === 'wait') await call('/api/talk/accept', { YQToken });
      return YQToken;
    },
    send: (YQToken: string, msg: string) =>
      call('/api/talk/send', { YQToken, msg, onlyID: `e2e-${Date.now()}-${Math.random().toString(36).slice(2)}` }),
    close: () => context.close(),
  };
}
