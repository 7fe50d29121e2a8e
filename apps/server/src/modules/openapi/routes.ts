import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import type { DefineRoute } from '../../lib/http.js';
import { docsRoutes } from './docs.js';
import { openApiDocument } from './document.js';

/** The server package's version: src/ and dist/ sit at the same depth under it. */
const { version } = createRequire(import.meta.url)('../../../package.json') as { version: string };

/** `GET /api/openapi.json`: built once, on first ask, from the routes as mounted (all are by then). */
export function openApiRoutes(app: FastifyInstance, route: DefineRoute, publicBase: () => string): void {
  let document: string | undefined;
  route('GET /api/openapi.json', {
    access: 'public',
    handler: ({ reply }) => {
      document ??= JSON.stringify(openApiDocument(app.apiRoutes, publicBase(), version));
      return reply.type('application/json; charset=utf-8').send(document);
    },
  });
  docsRoutes(app, route);
}
