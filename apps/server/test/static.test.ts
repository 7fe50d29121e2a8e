import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROOT, startTestServer, type TestServer } from './harness.js';

const consoleDist = join(APP_ROOT, 'apps/console/dist');

let server: TestServer;
beforeAll(async () => {
  // Built here when missing or older than their sources (a no-op after `npm test`'s own build).
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '@parley/console', '@parley/widget'], {
    cwd: APP_ROOT,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('the console and widget could not be built');
  server = await startTestServer();
}, 600_000);
afterAll(() => server?.close());

describe('the built console and widget', () => {
  it('serves the console with revalidation, and hashed assets precompressed and immutable', async () => {
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    // Served over plain HTTP on a LAN address, the page must still load its own assets over HTTP.
    expect(page.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
    // Images come from the server itself only: an outside address in a message must not reach the agent's browser.
    const imgSrc = page.headers.get('content-security-policy')?.match(/img-src ([^;]*)/)?.[1];
    expect(imgSrc?.split(' ').sort()).toEqual(["'self'", 'blob:', 'data:']);

    const asset = readdirSync(join(consoleDist, 'static')).find(
      (name) => name.endsWith('.js') && existsSync(join(consoleDist, 'static', `${name}.br`)),
    );
    const compressed = await fetch(`${server.url}/static/${asset}`, { headers: { 'accept-encoding': 'br' } });
    expect(compressed.status).toBe(200);
    expect(compressed.headers.get('content-encoding')).toBe('br');
    expect(compressed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');

    const missing = await fetch(`${server.url}/static/no-such-file.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: number }).code).toBe(404);
  });

  it('serves the widget loader to any site and lets any site frame the chat window', async () => {
    const loader = await fetch(`${server.url}/widget.js`);
    expect(loader.status).toBe(200);
    expect(loader.headers.get('content-type')).toContain('javascript');
    expect(loader.headers.get('cross-origin-resource-policy')).toBe('cross-origin');

    const chat = await fetch(`${server.url}/chat`);
    expect(chat.status).toBe(200);
    expect(chat.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(chat.headers.get('x-frame-options')).toBeNull();
  });
});
