import { crudRoutes } from '../../lib/crud.js';
import type { DefineRoute } from '../../lib/http.js';
import type { RoleService } from './service.js';

export function roleRoutes(route: DefineRoute, roles: RoleService): void {
  crudRoutes(route, 'role', { permission: 'setPermissions:roleManagement' }, roles);
}
