import type { DefineRoute } from '../../lib/http.js';
import type { LetterService } from './service.js';

export function letterRoutes(route: DefineRoute, letters: LetterService): void {
  route('POST /api/visitor/letter', {
    access: 'public',
    limit: 'visitorLetter',
    handler: ({ body, req }) => letters.create(body, req.ip),
  });
  route('GET /api/letter/unreadCount', { access: 'agent', handler: () => letters.unreadCount() });
}
