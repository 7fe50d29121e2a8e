import type { DefineRoute } from '../../lib/http.js';
import type { FriendlyService } from './service.js';

const access = { permission: 'setPermissions:friendly' } as const;

export function friendlyRoutes(route: DefineRoute, friendly: FriendlyService): void {
  route('GET /api/friendly/getList', { access, handler: ({ query }) => friendly.list(query) });
  route('POST /api/friendly/doEdit', { access, handler: ({ body }) => friendly.save(body) });
  route('POST /api/friendly/doDelete', { access, handler: ({ body }) => friendly.remove(body.ids) });
}
