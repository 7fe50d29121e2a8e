import type { DefineRoute } from '../../lib/http.js';
import type { AuditService } from './service.js';

/** CONTRACT §15: the audit log, for the Admin role only (a delegable permission does not open it). */
export function auditRoutes(route: DefineRoute, audit: AuditService): void {
  route('GET /api/audit/getList', {
    access: 'admin',
    async handler({ query, lang, reply }) {
      if (query.format !== 'csv') return audit.list(query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="audit-${audit.today()}.csv"`)
        .header('cache-control', 'no-store')
        .send(audit.exportCsv(query, lang));
    },
  });
}
