import type { DefineRoute } from '../../lib/http.js';
import type { NoteService } from './service.js';

/** Internal notes of the workbench: the service checks who writes (its agent, a supervisor) and who reads. */
export function noteRoutes(route: DefineRoute, notes: NoteService): void {
  route('POST /api/talk/note', { access: 'agent', handler: ({ auth, body }) => notes.add(auth, body) });
  route('GET /api/talk/notes', { access: 'agent', handler: ({ auth, query }) => notes.list(auth, query.YQToken) });
}
