import type { DefineRoute } from '../../lib/http.js';
import type { VisitorRecordService } from './service.js';

const access = { permission: 'seePermissions:seeVisitor' } as const;

export function visitorRecordRoutes(route: DefineRoute, visitors: VisitorRecordService): void {
  route('GET /api/user/getList', { access, handler: ({ query }) => visitors.list(query) });
  route('GET /api/user/detail', { access, handler: ({ query }) => visitors.detail(query.YQToken) });
  route('POST /api/user/doEdit', { access, handler: ({ body }) => visitors.edit(body) });
  route('POST /api/user/doDelete', { access, handler: ({ body }) => visitors.erase(body.ids) });
}
