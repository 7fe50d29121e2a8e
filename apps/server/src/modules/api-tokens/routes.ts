import { ADMIN_ROLE, API_TOKEN_GRANTS, type ApiTokenCalls } from '@parley/protocol';
import { auditActor } from '../../lib/caller.js';
import type { ApiRoutes, DefineRoute } from '../../lib/http.js';
import type { ApiTokenService } from './service.js';

/** API tokens (CONTRACT §12): made and revoked by people signed in, never by another token. */
export function apiTokenRoutes(route: DefineRoute, tokens: ApiTokenService, routes: ApiRoutes): void {
  const access = { permission: 'setPermissions:access' } as const;
  route('GET /api/apiToken/calls', { access, handler: () => tokenCalls(routes) });
  route('GET /api/apiToken/getList', { access, handler: () => tokens.list() });
  route('POST /api/apiToken/doEdit', {
    access,
    sessionOnly: true,
    handler: ({ auth, body, req }) => tokens.create(auth, body, auditActor(auth, req)),
  });
  route('POST /api/apiToken/doDelete', {
    access,
    sessionOnly: true,
    handler: async ({ auth, body, req }) => {
      await tokens.revoke(body.ids, auditActor(auth, req));
    },
  });
}

/** What a token may call, read from the routes as mounted: each grant's, and those open to every agent. */
export function tokenCalls(routes: ApiRoutes): ApiTokenCalls {
  const open = [...routes.declared].filter(([key]) => !routes.sessionOnly.has(key));
  const byGrant = API_TOKEN_GRANTS.map((grant) => ({
    grant,
    calls: open
      .filter(([, access]) => (grant === ADMIN_ROLE ? access === 'admin' : typeof access === 'object' && access.permission === grant))
      .map(([key]) => key)
      .sort(),
  }));
  const everyAgent = open
    .filter(([, access]) => access === 'agent')
    .map(([key]) => key)
    .sort();
  return { everyAgent, byGrant };
}
