import type { DefineRoute } from '../../lib/http.js';
import type { LetterService } from './service.js';

const access = { permission: 'seePermissions:seeHistorical' } as const;

export function letterRoutes(route: DefineRoute, letters: LetterService): void {
  route('POST /api/visitor/letter', {
    access: 'public',
    limit: 'visitorLetter',
    handler: ({ body, req }) => letters.create(body, req.ip),
  });
  route('GET /api/letter/getList', { access, handler: ({ query }) => letters.list(query) });
  route('POST /api/letter/read', { access, handler: ({ body }) => letters.read(body.ids) });
  route('POST /api/letter/doEdit', { access, handler: ({ auth, body }) => letters.edit(auth, body) });
  route('POST /api/letter/doDelete', { access, handler: ({ body }) => letters.remove(body.ids) });
  route('GET /api/letter/unreadCount', { access: 'agent', handler: () => letters.unreadCount() });
}
