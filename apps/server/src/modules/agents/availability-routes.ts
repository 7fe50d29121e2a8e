import type { DefineRoute } from '../../lib/http.js';
import type { AvailabilityService } from './availability.js';

/** The workbench's own identity and availability, and the other agents (transfer targets). */
export function availabilityRoutes(route: DefineRoute, availability: AvailabilityService): void {
  route('GET /api/index', { access: 'agent', handler: ({ auth }) => availability.index(auth) });
  route('POST /api/index/state', { access: 'agent', handler: ({ auth, body }) => availability.setState(auth, body.state) });
  route('GET /api/talk/agents', { access: 'agent', handler: () => availability.peers() });
}
