import { crudRoutes } from '../../lib/crud.js';
import type { DefineRoute } from '../../lib/http.js';
import type { VisitorRecordService } from './service.js';

const access = { permission: 'seePermissions:seeVisitor' } as const;

export function visitorRecordRoutes(route: DefineRoute, visitors: VisitorRecordService): void {
  crudRoutes(route, 'user', access, visitors);
  route('GET /api/user/detail', { access, handler: ({ query }) => visitors.detail(query.YQToken) });
}
