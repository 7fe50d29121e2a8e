import type { DefineRoute } from '../../lib/http.js';
import type { PersonalService } from './service.js';

export function personalRoutes(route: DefineRoute, personal: PersonalService): void {
  route('GET /api/personal', { access: 'agent', handler: ({ auth }) => personal.get(auth.agentId) });
  route('POST /api/personal', { access: 'agent', handler: ({ auth, body }) => personal.save(auth.agentId, body) });
}
