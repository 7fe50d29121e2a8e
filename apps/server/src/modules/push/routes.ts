import type { DefineRoute } from '../../lib/http.js';
import { pickLang } from '../../lib/i18n.js';
import type { PushSender } from './sender.js';
import type { PushService } from './service.js';

/** Web Push (CONTRACT §14): each agent manages its own subscriptions, and nobody else's. */
export function pushRoutes(route: DefineRoute, push: PushService, sender: PushSender): void {
  route('GET /api/push/key', { access: 'agent', handler: () => ({ publicKey: push.publicKey() }) });
  route('POST /api/push/subscribe', {
    access: 'agent',
    handler: ({ auth, body, req }) =>
      push.subscribe(auth.agentId, body, req.headers['user-agent'] ?? '', pickLang(req.headers['accept-language'])),
  });
  route('POST /api/push/unsubscribe', { access: 'agent', handler: ({ auth, body }) => push.unsubscribe(auth.agentId, body.endpoint) });
  route('GET /api/push/devices', { access: 'agent', handler: ({ auth }) => push.devices(auth.agentId) });
  route('POST /api/push/devices/remove', { access: 'agent', handler: ({ auth, body }) => push.removeDevice(auth.agentId, body.id) });
  route('POST /api/push/test', { access: 'agent', handler: ({ auth }) => sender.test(auth.agentId) });
}
