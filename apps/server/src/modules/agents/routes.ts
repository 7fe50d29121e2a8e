import { crudRoutes } from '../../lib/crud.js';
import { clientMeta, type DefineRoute } from '../../lib/http.js';
import type { RoleService } from '../roles/service.js';
import type { AgentService } from './service.js';

const access = { permission: 'setPermissions:service' } as const;

export function agentRoutes(route: DefineRoute, agents: AgentService, roles: RoleService): void {
  // The agent form's role picker: managing agents must not need the role-management permission too.
  // Which of these roles the caller may give is decided by grantable(), here and on save.
  route('GET /api/service/roles', { access, handler: () => roles.list({ pageNo: 1, pageSize: 100 }) });
  crudRoutes(route, 'service', access, agents);
  // Signing up makes an agent's account (disabled until an administrator enables it): open to anyone.
  route('POST /api/register', {
    access: 'public',
    limit: 'register',
    handler: ({ body, req }) => agents.register(body, clientMeta(req).ip),
  });
}
