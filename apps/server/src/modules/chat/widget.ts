import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** The chat window is framed by any site that embeds the widget; the console never is. */
const CHAT_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https:",
  "connect-src 'self' ws: wss:",
  "media-src 'self' data:",
  'frame-ancestors *',
  // No plugins, and no <base> or form that could send the window's links and posts to another host.
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/**
 * Serves the widget build: `/widget.js` (the loader, fetched by other sites' pages), `/widget.d.ts` (its API's types) and `/chat` (the
 * chat window). Both are absent until the widget is built; then they answer 404 like any unknown path.
 */
export async function registerWidget(app: FastifyInstance, widgetDir: string): Promise<void> {
  const loader = join(widgetDir, 'widget.js');
  const chatDir = join(widgetDir, 'chat');

  app.get('/widget.js', async (_req, reply) => {
    if (!existsSync(loader)) return reply.callNotFound();
    return reply
      .type('text/javascript; charset=utf-8')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('cache-control', 'public, max-age=300')
      .send(await readFile(loader));
  });

  // The loader's typed API (CONTRACT §13), for sites written in TypeScript.
  const types = join(widgetDir, 'widget.d.ts');
  app.get('/widget.d.ts', async (_req, reply) => {
    if (!existsSync(types)) return reply.callNotFound();
    return reply
      .type('text/plain; charset=utf-8')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('access-control-allow-origin', '*')
      .header('cache-control', 'public, max-age=300')
      .send(await readFile(types));
  });

  if (!existsSync(chatDir)) return;
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_req, reply) => {
      reply.header('content-security-policy', CHAT_CSP);
      reply.removeHeader('x-frame-options');
    });
    await scope.register(fastifyStatic, {
      root: chatDir,
      prefix: '/chat/',
      decorateReply: false,
      index: ['index.html'],
      preCompressed: true,
      setHeaders(res, path) {
        res.header('cache-control', /[\\/]assets[\\/]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    scope.get('/chat', async (_req, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .send(await readFile(join(chatDir, 'index.html'))),
    );
  });
}
