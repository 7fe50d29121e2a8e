import { auditActor } from '../../lib/caller.js';
import type { DefineRoute } from '../../lib/http.js';
import type { LabelService } from './service.js';

/** Changing the list is managing the team's tools, as agents are: setPermissions:service (or Admin). */
const manage = { permission: 'setPermissions:service' } as const;

export function labelRoutes(route: DefineRoute, labels: LabelService): void {
  // Every agent reads the list: the workbench offers it to whoever labels a conversation.
  route('GET /api/label/getList', { access: 'agent', handler: ({ query }) => labels.list(query) });
  route('POST /api/label/doEdit', { access: manage, handler: ({ body, auth, req }) => labels.save(body, auth, auditActor(auth, req)) });
  route('POST /api/label/doDelete', {
    access: manage,
    handler: ({ body, auth, req }) => labels.remove(body.ids, auth, auditActor(auth, req)),
  });
  route('GET /api/talk/labels', { access: 'agent', handler: ({ auth }) => labels.ofWorkbench(auth) });
  route('POST /api/talk/labels', {
    access: 'agent',
    handler: ({ body, auth }) => labels.setOnConversation(auth, body.YQToken, body.labelIds),
  });
}
