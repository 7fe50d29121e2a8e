import type { DefineRoute } from '../../lib/http.js';
import { regionTree } from './tree.js';

export function regionRoutes(route: DefineRoute): void {
  route('GET /api/area/getList', { access: 'agent', handler: () => ({ list: regionTree() }) });
}
