import { crudRoutes } from '../../lib/crud.js';
import type { DefineRoute } from '../../lib/http.js';
import type { FriendlyService } from './service.js';

export function friendlyRoutes(route: DefineRoute, friendly: FriendlyService): void {
  crudRoutes(route, 'friendly', { permission: 'setPermissions:friendly' }, friendly);
}
