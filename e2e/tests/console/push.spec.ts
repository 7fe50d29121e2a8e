import { type CDPSession, expect, type Page, test } from '@playwright/test';
import { apiLogin, createAgent, openConsole } from '../../support/console';
import { BASE_URL } from '../../support/env';

// The push and notificationclick handlers live in the service worker, which the other suites block.
test.use({ serviceWorkers: 'allow' });
// The worker's install caches every asset of the build first, which takes a while on a busy machine.
test.setTimeout(150_000);

/** The worker's global scope, as far as these tests use it (the e2e project compiles without the worker types). */
interface WorkerScope {
  registration: ServiceWorkerRegistration;
  dispatchEvent(event: Event): boolean;
  NotificationEvent: new (type: string, init: { notification: Notification }) => Event;
}

interface Shown {
  title: string;
  body: string;
  tag: string;
  data: { url: string; type: string };
}

/** The id DevTools gives the console's service worker registration, once the worker is active. */
async function registrationId(page: Page, cdp: CDPSession): Promise<string> {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  const found = new Promise<string>((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const live = registrations.find((item) => !item.isDeleted && item.scopeURL === `${BASE_URL}/`);
      if (live) resolve(live.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  return found;
}

async function notifications(page: Page): Promise<Shown[]> {
  const [worker] = page.context().serviceWorkers();
  if (!worker) throw new Error('no service worker');
  return worker.evaluate(async () => {
    const list = await (self as unknown as WorkerScope).registration.getNotifications();
    return list.map((n: Notification) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }));
  });
}

test('a push reaches the real service worker: one notification per conversation, and its click opens the conversation', async ({
  page,
  request,
}) => {
  await page.context().grantPermissions(['notifications'], { origin: BASE_URL });
  const agent = await createAgent(request);
  const token = await apiLogin(request, agent.username, agent.password);
  await openConsole(page, '/workbench/workbench', { token, language: 'en' });
  const cdp = await page.context().newCDPSession(page);
  const registration = await registrationId(page, cdp);

  // A visitor writes; the agent's console (the only one open) takes the conversation.
  const init = await request.post(`${BASE_URL}/api/visitor/init`, { data: { url: 'https://shop.example/', title: 'Shop', lang: 'en' } });
  const visitor = ((await init.json()) as { data: { YQToken: string; id: string } }).data;
  const said = await request.post(`${BASE_URL}/api/visitor/message`, {
    data: { YQToken: visitor.YQToken, msg: 'Is it in stock?', onlyID: `push-${Date.now()}` },
  });
  expect(said.ok()).toBe(true);
  await expect(page.getByText('Is it in stock?').first()).toBeVisible();
  await expect(page.getByTestId('wb-conversation')).toHaveCount(0);

  // The agent is elsewhere in the console when the pushes come: a burst on one conversation.
  await page.goto('/#/history/history');
  await expect(page.getByRole('tab', { selected: true })).toContainText('History');
  const url = `/#/workbench/workbench?visitor=${encodeURIComponent(visitor.id)}`;
  for (const body of ['Is it in stock?', 'Hello?', 'Anyone there?']) {
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: BASE_URL,
      registrationId: registration,
      data: JSON.stringify({ type: 'newMsg', title: 'New message from a visitor', body, url }),
    });
  }
  await cdp.send('ServiceWorker.deliverPushMessage', {
    origin: BASE_URL,
    registrationId: registration,
    data: JSON.stringify({ type: 'letter', title: 'New leave-message: Léa', body: 'Call me', url: '/#/history/letter' }),
  });
  await expect
    .poll(async () => (await notifications(page)).map((shown) => shown.body).sort(), { timeout: 10_000 })
    .toEqual(['Anyone there?', 'Call me']);
  const shown = (await notifications(page)).find((item) => item.tag === url);
  expect(shown).toMatchObject({ title: 'New message from a visitor', data: { url, type: 'newMsg' } });

  // DevTools cannot click a notification: the click is dispatched to the worker's own handler, which
  // finds this console window and takes it to the conversation (opening a window needs a real click).
  const [worker] = page.context().serviceWorkers();
  await worker?.evaluate(async (tag) => {
    const scope = self as unknown as WorkerScope;
    const [notification] = await scope.registration.getNotifications({ tag });
    if (!notification) throw new Error('no notification');
    scope.dispatchEvent(new scope.NotificationEvent('notificationclick', { notification }));
  }, url);
  await expect(page).toHaveURL(new RegExp(`#/workbench/workbench\\?visitor=${visitor.id}`));
  await expect(page.getByTestId('wb-conversation').getByText('Is it in stock?').first()).toBeVisible();
  expect(await notifications(page)).toHaveLength(1);
});

test('the personal page turns notifications on for this browser, sends a test and lists the devices', async ({ page, request }) => {
  await page.context().grantPermissions(['notifications'], { origin: BASE_URL });
  const agent = await createAgent(request);
  const token = await apiLogin(request, agent.username, agent.password);
  // An agent's role opens the personal centre from the avatar menu, in a drawer.
  await openConsole(page, '/workbench/workbench', { token, language: 'en' });
  await page.getByTestId('header-avatar').click();
  await page.getByRole('menuitem', { name: 'Personal centre' }).click();
  const section = page.getByTestId('personal-push');
  await expect(page.getByTestId('personal-drawer').getByText('Notifications when the console is closed')).toBeVisible();
  await expect(section.getByTestId('push-this-device')).toHaveText('Off');
  await expect(section.getByText('No device receives notifications yet')).toBeVisible();
  await section.getByTestId('push-toggle').click();
  // Subscribing needs the browser's push service; a Chromium without one says why instead.
  const outcome = page.locator('.ant-message-notice').filter({ hasText: /Notifications turned on|Could not turn notifications on/ });
  await expect(outcome).toBeVisible();
  const said = (await outcome.textContent()) ?? '';
  test.info().annotations.push({ type: 'subscription', description: said });
  if (said.includes('turned on')) {
    await expect(section.getByTestId('push-this-device')).toHaveText('On');
    await expect(section.getByTestId('push-device')).toHaveCount(1);
  } else {
    await expect(section.getByTestId('push-this-device')).toHaveText('Off');
  }
  await section.getByTestId('push-test').click();
  await expect(
    page.locator('.ant-message-notice').filter({ hasText: /Test notification sent|No device is subscribed|could not be reached/ }),
  ).toBeVisible();
});
