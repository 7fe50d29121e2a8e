import type { DefineRoute } from '../../lib/http.js';
import type { LinkService } from './service.js';

const access = { permission: 'seePermissions:link' } as const;

export function linkRoutes(route: DefineRoute, links: LinkService): void {
  route('GET /api/link/getList', { access, handler: ({ query }) => links.list(query) });
  route('POST /api/link/doEdit', { access, handler: ({ body }) => links.save(body) });
  route('POST /api/link/doDelete', { access, handler: ({ body }) => links.remove(body.ids) });
  route('GET /api/link/qrcode', { access, handler: ({ query }) => links.qrcode(query.id) });
}
