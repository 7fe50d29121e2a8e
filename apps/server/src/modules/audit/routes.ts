import type { JobSlots } from '../../lib/heavy.js';
import type { DefineRoute } from '../../lib/http.js';
import type { AuditService } from './service.js';

/** CONTRACT §15: the audit log, for the Admin role only (a delegable permission does not open it). */
export function auditRoutes(route: DefineRoute, audit: AuditService, exports: JobSlots): void {
  route('GET /api/audit/getList', {
    access: 'admin',
    async handler({ query, lang, reply, auth }) {
      if (query.format !== 'csv') return audit.list(query);
      // Counted with the other CSV exports (history, knowledge base): their limits are one budget.
      reply.raw.once('close', exports.take(auth.uuid));
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="audit-${audit.today()}.csv"`)
        .header('cache-control', 'no-store')
        .send(audit.exportCsv(query, lang));
    },
  });
}
