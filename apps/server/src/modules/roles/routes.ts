import { deleteBody, roleEditBody, roleListQuery } from '@parley/protocol';
import type { DefineRoute } from '../../lib/http.js';
import type { RoleService } from './service.js';

const access = { permission: 'setPermissions:roleManagement' } as const;

export function roleRoutes(route: DefineRoute, roles: RoleService): void {
  route({ method: 'GET', url: '/api/role/getList', access, query: roleListQuery, handler: ({ query }) => roles.list(query) });
  route({ method: 'POST', url: '/api/role/doEdit', access, body: roleEditBody, handler: ({ body, auth }) => roles.save(body, auth) });
  route({ method: 'POST', url: '/api/role/doDelete', access, body: deleteBody, handler: ({ body, auth }) => roles.remove(body.ids, auth) });
}
