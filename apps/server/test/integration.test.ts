import type { Integration } from '@parley/protocol';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.login();
});
afterAll(() => server.close());

function decodeQr(dataUrl: string): string | undefined {
  const png = PNG.sync.read(Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64'));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

describe('GET /api/access', () => {
  it('answers 401 without a token and 403 without setPermissions:access', async () => {
    expect((await server.get('/api/access')).status).toBe(401);
    await server.post('/api/role/doEdit', { name: 'Linkers', permissions: ['seePermissions:link'] }, { token: admin });
    const { token } = await createAgent(server, admin, { username: 'linker', role: 'Linkers' });
    const refused = await server.get('/api/access', { token });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 403, msg: 'You do not have permission to do this' });
  });

  it('answers the embed script, the chat page, its QR code and the chat links', async () => {
    await server.post('/api/role/doEdit', { name: 'Integrators', permissions: ['setPermissions:access'] }, { token: admin });
    const { token } = await createAgent(server, admin, { username: 'integrator', role: 'Integrators' });
    const link = await server.post<{ id: number }>('/api/link/doEdit', { name: 'Spring fair', key: 'spring26' }, { token: admin });

    const response = await server.get<Integration>('/api/access', { token });
    expect(response.status).toBe(200);
    const integration = response.body.data;
    expect(integration.script).toBe(
      `<script>window.Parley=window.Parley||function(){(Parley.q=Parley.q||[]).push(arguments)}</script>\n<script src="${server.url}/widget.js" async></script>`,
    );
    expect(integration.chatUrl).toBe(`${server.url}/chat`);
    expect(integration.qrCode).toMatch(/^data:image\/png;base64,/);
    expect(decodeQr(integration.qrCode)).toBe(`${server.url}/chat`);
    expect(integration.links).toEqual([{ id: link.body.data.id, name: 'Spring fair', url: `${server.url}/chat?link=spring26` }]);
  });

  it('names the public address when one is configured', async () => {
    const behindProxy = await startTestServer({ PUBLIC_URL: 'https://chat.example.com' });
    try {
      const response = await behindProxy.get<Integration>('/api/access', { token: await behindProxy.login() });
      expect(response.body.data.script).toBe(
        '<script>window.Parley=window.Parley||function(){(Parley.q=Parley.q||[]).push(arguments)}</script>\n<script src="https://chat.example.com/widget.js" async></script>',
      );
      expect(response.body.data.chatUrl).toBe('https://chat.example.com/chat');
    } finally {
      await behindProxy.close();
    }
  });
});
