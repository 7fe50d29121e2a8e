import { ApiError } from '../../lib/errors.js';
import { clientMeta, type DefineRoute } from '../../lib/http.js';
import type { Lang } from '../../lib/i18n.js';
import type { MailConsent } from '../mail-consent/service.js';
import { originAllowed } from '../settings/origins.js';
import type { SettingsService } from '../settings/service.js';
import type { VisitorService } from './service.js';
import { visitorLang } from './views.js';

/** The visitor API: no agent token; the YQToken handed out by init is the visitor's credential. */
export function visitorRoutes(
  route: DefineRoute,
  visitors: VisitorService,
  settings: Pick<SettingsService, 'current'>,
  consent: Pick<MailConsent, 'offer'>,
  siteLanguage: Lang,
): void {
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
    async handler({ body, req }) {
      const visitor = await visitors.contact(body.YQToken, { name: body.name, phone: body.phone, email: body.email });
      if (!body.email) return { transcript: 'none' as const };
      // Transcripts go to the address only once its owner opens the link this mails (finding 10 of issue 23).
      const lang = visitor.lang ? visitorLang(visitor) : siteLanguage;
      return { transcript: await consent.offer(visitor.id, body.email, lang, req.ip) };
    },
  });
  route('POST /api/visitor/visit', {
    access: 'public',
    limit: 'visitorVisit',
    handler: ({ body }) => visitors.visit(body.YQToken, body.url, body.title ?? ''),
  });
}
