import { auditActor } from '../../lib/caller.js';
import type { DefineRoute } from '../../lib/http.js';
import type { IdentityService } from './service.js';

/** CONTRACT §13: identify and attributes on the visitor API; the identity secret for the Admin. */
export function identityRoutes(route: DefineRoute, identity: IdentityService): void {
  route('POST /api/visitor/identify', {
    access: 'public',
    limit: 'visitorContact',
    handler: ({ body }) => identity.identify(body),
  });
  route('POST /api/visitor/attributes', {
    access: 'public',
    limit: 'visitorContact',
    handler: ({ body }) => identity.setAttributes(body),
  });
  // Role Admin (CONTRACT §13 "the Admin may read and rotate it"), like the appSetting page that keeps it.
  route('GET /api/access/identitySecret', {
    access: 'admin',
    handler: ({ auth, req }) => identity.readSecret(auth.uuid, auditActor(auth, req)),
  });
  route('POST /api/access/identitySecret/rotate', {
    access: 'admin',
    handler: ({ auth, req }) => identity.rotateSecret(auth.uuid, auditActor(auth, req)),
  });
}
