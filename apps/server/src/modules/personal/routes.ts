import { clientMeta, type DefineRoute } from '../../lib/http.js';
import type { Mfa } from '../auth/mfa.js';
import type { AuthService } from '../auth/service.js';
import type { PersonalService } from './service.js';

export function personalRoutes(route: DefineRoute, personal: PersonalService, mfa: Mfa, auth: AuthService): void {
  route('GET /api/personal', { access: 'agent', duringMfaSetup: true, handler: ({ auth: who }) => personal.get(who.agentId) });
  route('POST /api/personal', {
    access: 'agent',
    sessionOnly: true,
    handler: ({ auth: who, body, req }) => personal.save(who, body, clientMeta(req)),
  });

  route('POST /api/personal/mfa/setup', {
    access: 'agent',
    sessionOnly: true,
    duringMfaSetup: true,
    handler: ({ auth: who }) => mfa.setup(who),
  });
  route('POST /api/personal/mfa/enable', {
    access: 'agent',
    sessionOnly: true,
    duringMfaSetup: true,
    handler: ({ auth: who, body, req }) => mfa.enable(who, body.code, clientMeta(req)),
  });
  route('POST /api/personal/mfa/disable', {
    access: 'agent',
    sessionOnly: true,
    handler: ({ auth: who, body, req }) => mfa.disable(who, body.code, clientMeta(req)),
  });

  route('GET /api/personal/sessions', { access: 'agent', sessionOnly: true, handler: ({ auth: who }) => auth.sessions(who) });
  route('POST /api/personal/sessions/revoke', {
    access: 'agent',
    sessionOnly: true,
    handler: ({ auth: who, body, req }) => auth.revokeSessions(who, body.ids, clientMeta(req)),
  });
}
