import { crudRoutes } from '../../lib/crud.js';
import type { DefineRoute } from '../../lib/http.js';
import type { LinkService } from './service.js';

const access = { permission: 'seePermissions:link' } as const;

export function linkRoutes(route: DefineRoute, links: LinkService): void {
  crudRoutes(route, 'link', access, links);
  route('GET /api/link/qrcode', { access, handler: ({ query }) => links.qrcode(query.id) });
}
