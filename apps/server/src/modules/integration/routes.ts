import type { DefineRoute } from '../../lib/http.js';
import type { IntegrationService } from './service.js';

export function integrationRoutes(route: DefineRoute, integration: IntegrationService): void {
  route('GET /api/access', { access: { permission: 'setPermissions:access' }, handler: () => integration.get() });
}
