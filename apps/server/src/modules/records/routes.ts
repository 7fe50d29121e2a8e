import type { LoginRecord } from '@parley/protocol';
import type { DefineRoute } from '../../lib/http.js';
import type { RecordRepository } from './repository.js';

/** A date alone means the whole day: `to=2026-11-21` includes that day's last second. */
function bound(value: string | undefined, end: boolean): string | undefined {
  if (!value) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return end ? `${value}T23:59:59.999Z` : `${value}T00:00:00.000Z`;
  return new Date(value).toISOString();
}

export function recordRoutes(route: DefineRoute, repo: RecordRepository): void {
  route('GET /api/record/getList', {
    access: { permission: 'seePermissions:seeLoginRecord' },
    async handler({ query }) {
      const { rows, total } = await repo.list(
        {
          username: query.username || query.account || undefined,
          result: query.result,
          from: bound(query.from, false),
          to: bound(query.to, true),
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
