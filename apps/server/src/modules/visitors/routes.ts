import { ApiError } from '../../lib/errors.js';
import { clientMeta, type DefineRoute } from '../../lib/http.js';
import { originAllowed } from '../settings/origins.js';
import type { SettingsService } from '../settings/service.js';
import type { VisitorService } from './service.js';

/** The visitor API: no agent token; the YQToken handed out by init is the visitor's credential. */
export function visitorRoutes(route: DefineRoute, visitors: VisitorService, settings: Pick<SettingsService, 'current'>): void {
  route('POST /api/visitor/init', {
    access: 'public',
    limit: 'visitorInit',
    handler: ({ body, req }) => {
      if (!originAllowed(req, settings.current('appSetting').allowedOrigins)) throw new ApiError(403, 'originNotAllowed');
      return visitors.init(body, clientMeta(req));
    },
  });
  route('POST /api/visitor/contact', {
    access: 'public',
    limit: 'visitorContact',
    handler: ({ body }) => visitors.contact(body.YQToken, { name: body.name, phone: body.phone, email: body.email }),
  });
  route('POST /api/visitor/visit', {
    access: 'public',
    limit: 'visitorVisit',
    handler: ({ body }) => visitors.visit(body.YQToken, body.url, body.title ?? ''),
  });
}
