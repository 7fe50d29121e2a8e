import { crudRoutes } from '../../lib/crud.js';
import type { DefineRoute } from '../../lib/http.js';
import type { LetterService } from './service.js';

const access = { permission: 'seePermissions:seeHistorical' } as const;

export function letterRoutes(route: DefineRoute, letters: LetterService): void {
  route('POST /api/visitor/letter', {
    access: 'public',
    limit: 'visitorLetter',
    handler: ({ body, req }) => letters.create(body, req.ip),
  });
  crudRoutes(route, 'letter', access, letters);
  route('POST /api/letter/read', { access, handler: ({ body }) => letters.read(body.ids) });
  route('GET /api/letter/unreadCount', { access: 'agent', handler: () => letters.unreadCount() });
}
