import type { DefineRoute } from '../../lib/http.js';
import { auditActor } from '../audit/audit-log.js';
import type { ApiTokenService } from './service.js';

/** API tokens (CONTRACT §12): made and revoked by people signed in, never by another token. */
export function apiTokenRoutes(route: DefineRoute, tokens: ApiTokenService): void {
  const access = { permission: 'setPermissions:access' } as const;
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
