import type { LoginRecord } from '@parley/protocol';
import type { DefineRoute } from '../../lib/http.js';
import { bound } from '../../lib/time.js';
import type { RecordRepository } from './repository.js';

/** `from`/`to` days are the site's days: `to=2026-11-21` runs to that day's last millisecond there. */
export function recordRoutes(route: DefineRoute, repo: RecordRepository, timeZone: () => string): void {
  route('GET /api/record/getList', {
    access: { permission: 'seePermissions:seeLoginRecord' },
    async handler({ query }) {
      const { rows, total } = await repo.list(
        {
          username: query.username || query.account || undefined,
          result: query.result,
          from: bound(query.from, 'from', timeZone()),
          to: bound(query.to, 'to', timeZone()),
        },
        query,
      );
      const list: LoginRecord[] = rows.map((row) => ({
        id: row.id,
        username: row.username,
        ip: row.ip,
        userAgent: row.user_agent,
        result: row.result === 'success' ? 'success' : 'failure',
        reason: row.reason,
        created_at: row.created_at,
      }));
      return { list, total };
    },
  });
}
