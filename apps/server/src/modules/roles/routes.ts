import type { DefineRoute } from '../../lib/http.js';
import type { RoleService } from './service.js';

const access = { permission: 'setPermissions:roleManagement' } as const;

export function roleRoutes(route: DefineRoute, roles: RoleService): void {
  route('GET /api/role/getList', { access, handler: ({ query }) => roles.list(query) });
  route('POST /api/role/doEdit', { access, handler: ({ body, auth }) => roles.save(body, auth) });
  route('POST /api/role/doDelete', { access, handler: ({ body, auth }) => roles.remove(body.ids, auth) });
}
