import type { JobSlots } from '../../lib/heavy.js';
import type { DefineRoute } from '../../lib/http.js';
import type { HistoryService } from './service.js';

/**
 * Open to every agent: the service narrows what an agent without seeHistorical sees to the
 * conversations they took part in (CONTRACT §7).
 */
export function historyRoutes(route: DefineRoute, history: HistoryService, exports: JobSlots): void {
  route('GET /api/history/getList', { access: 'agent', handler: ({ query, auth }) => history.list(auth, query) });
  route('GET /api/history/detail', { access: 'agent', handler: ({ query, auth }) => history.detail(auth, query.id) });
  route('GET /api/history/export', {
    access: 'agent',
    handler({ query, auth, lang, reply }) {
      const filter = history.exportFilter(auth, query);
      const release = exports.take(auth.uuid);
      // Closed when the last byte is sent and when the client goes away before it: either ends the export.
      reply.raw.once('close', release);
      const csv = history.exportCsv(filter, lang);
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="history-${history.today()}.csv"`)
        .header('cache-control', 'no-store')
        .send(csv);
    },
  });
}
