import { auditActor } from '../../lib/caller.js';
import type { DefineRoute } from '../../lib/http.js';
import type { WebhookService } from './service.js';

/** Webhooks (CONTRACT §12), managed by holders of `setPermissions:access`. */
export function webhookRoutes(route: DefineRoute, webhooks: WebhookService): void {
  const access = { permission: 'setPermissions:access' } as const;
  route('GET /api/webhook/getList', { access, handler: () => webhooks.list() });
  route('POST /api/webhook/doEdit', { access, handler: ({ auth, body, req }) => webhooks.edit(body, auditActor(auth, req)) });
  route('POST /api/webhook/doDelete', {
    access,
    handler: async ({ auth, body, req }) => {
      await webhooks.remove(body.ids, auditActor(auth, req));
    },
  });
  route('POST /api/webhook/rotateSecret', {
    access,
    handler: ({ auth, body, req }) => webhooks.rotateSecret(body.id, auditActor(auth, req)),
  });
  route('POST /api/webhook/test', { access, handler: ({ body }) => webhooks.test(body.id) });
  route('GET /api/webhook/deliveries', { access, handler: ({ query }) => webhooks.deliveries(query) });
  route('POST /api/webhook/redeliver', { access, handler: ({ body }) => webhooks.redeliver(body.deliveryId) });
}
