import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { DefineRoute } from '../../lib/http.js';

/** Where the viewer's files are served from: outside `/api`, cached, and only these three. */
export const DOCS_ASSETS = '/docs-assets';

const viewerDir = (createRequire(import.meta.url)('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley API</title>
<link rel="icon" type="image/svg+xml" href="/logo.svg">
<link rel="stylesheet" href="${DOCS_ASSETS}/swagger-ui.css">
</head>
<body>
<main id="docs"></main>
<script src="${DOCS_ASSETS}/swagger-ui-bundle.js"></script>
<script src="${DOCS_ASSETS}/docs.js"></script>
</body>
</html>
`;

// The page's own start, a file of its own: the CSP allows no inline script.
const START = `window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#docs',
  deepLinking: true,
  filter: true,
  persistAuthorization: false,
  tryItOutEnabled: false,
});
`;

/**
 * `GET /api/docs`: the OpenAPI document rendered by Swagger UI, served by Parley itself (no outside CDN),
 * under the same Content-Security-Policy as the console.
 */
export function docsRoutes(app: FastifyInstance, route: DefineRoute): void {
  route('GET /api/docs', {
    access: 'public',
    handler: ({ reply }) => reply.type('text/html; charset=utf-8').send(PAGE),
  });
  const files: Record<string, { type: string; body: () => Promise<Buffer | string> }> = {
    'swagger-ui.css': { type: 'text/css; charset=utf-8', body: () => readFile(join(viewerDir, 'swagger-ui.css')) },
    'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: () => readFile(join(viewerDir, 'swagger-ui-bundle.js')) },
    'docs.js': { type: 'text/javascript; charset=utf-8', body: async () => START },
  };
  const loaded = new Map<string, Promise<Buffer | string>>();
  app.get<{ Params: { file: string } }>(`${DOCS_ASSETS}/:file`, async (req, reply) => {
    const file = files[req.params.file];
    if (!file) return reply.callNotFound();
    let body = loaded.get(req.params.file);
    if (!body) {
      body = file.body();
      loaded.set(req.params.file, body);
    }
    return reply
      .type(file.type)
      .header('cache-control', 'public, max-age=86400')
      .send(await body);
  });
}
