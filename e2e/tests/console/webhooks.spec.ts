import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { apiLogin, openConsole } from '../../support/console';
import { BASE_URL } from '../../support/env';

/** A receiver on loopback (the e2e server lists 127.0.0.1 in OUTBOUND_ALLOW) that records what it gets. */
async function startReceiver() {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/parley`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

test('integration: a webhook is made in the console, its secret shown once, a test event delivered and seen in its log', async ({
  page,
  request,
  context,
}) => {
  const receiver = await startReceiver();
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
    await openConsole(page, '/access/access', { token: await apiLogin(request), language: 'en', theme: { layout: 'vertical' } });

    await page.getByTestId('webhook-new').click();
    const dialog = page.getByRole('dialog', { name: 'New webhook' });
    await dialog.getByLabel('URL').fill(receiver.url);
    await dialog.getByRole('checkbox', { name: /New message/ }).check();
    await dialog.getByRole('checkbox', { name: /Conversation ended/ }).check();
    await dialog.getByRole('button', { name: 'Save' }).click();

    const secretBox = page.getByTestId('webhook-secret');
    await expect(secretBox).toContainText('whsec_');
    await secretBox.getByRole('button', { name: 'Copy' }).click();
    const secret = await page.evaluate(() => navigator.clipboard.readText());
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByText(secret)).toHaveCount(0);

    const row = page.getByTestId('webhook-row').filter({ hasText: receiver.url });
    await expect(row).toContainText('Enabled');
    await expect(row).toContainText('New message');
    await expect(row).toContainText('Conversation ended');

    await row.getByTestId('webhook-test').click();
    const delivery = row.getByTestId('webhook-delivery').first();
    await expect(delivery).toHaveAttribute('data-status', 'delivered');
    await expect(delivery).toContainText('ping');
    await expect(delivery).toContainText('HTTP 200');
    await expect(delivery).toContainText('Attempts: 1');

    // What reached the receiver is the ping, signed with the secret the console showed.
    expect(receiver.received).toHaveLength(1);
    const [ping] = receiver.received;
    expect(ping?.headers['parley-event']).toBe('ping');
    const signature = String(ping?.headers['parley-signature']);
    const t = /t=(\d+)/.exec(signature)?.[1];
    const v1 = /v1=([0-9a-f]+)/.exec(signature)?.[1];
    expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${ping?.body}`).digest('hex'));

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('tooltip').getByRole('button', { name: 'Delete' }).click();
    await expect(row).toHaveCount(0);
  } finally {
    await receiver.close();
  }
});
