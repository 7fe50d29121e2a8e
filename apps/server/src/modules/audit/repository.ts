import type { Db, DbOrTx } from '../../db/index.js';
import { type Page, paginate } from '../../db/paginate.js';
import type { AuditLogTable } from '../../db/schema.js';
import { containsText } from '../../db/sql.js';

export interface AuditFilter {
  actor?: string | undefined;
  /** An action, or an area prefix of actions (`robot` matches `robot.settings` and `robot.pair.create`). */
  action?: string | undefined;
  /** Stored instants, both ends included. */
  from?: string | undefined;
  to?: string | undefined;
}

export type AuditRow = Omit<AuditLogTable, 'id'> & { id: number };

const COLUMNS = ['id', 'actor', 'actor_id', 'action', 'target', 'detail', 'ip', 'created_at'] as const;

/** SQL of the audit log. Rows are only ever inserted: nothing here updates or deletes one. */
export class AuditRepository {
  constructor(private readonly db: Db) {}

  async insert(tx: DbOrTx, row: Omit<AuditLogTable, 'id'>): Promise<void> {
    await tx.insertInto('audit_log').values(row).execute();
  }

  private filtered(filter: AuditFilter) {
    let query = this.db.selectFrom('audit_log');
    if (filter.actor) query = query.where(containsText('audit_log.actor', filter.actor));
    const { action } = filter;
    if (action) query = query.where((eb) => eb.or([eb('action', '=', action), eb('action', 'like', `${action}.%`)]));
    if (filter.from) query = query.where('created_at', '>=', filter.from);
    if (filter.to) query = query.where('created_at', '<=', filter.to);
    return query;
  }

  /** One page, newest first. */
  list(filter: AuditFilter, page: Page) {
    return paginate(
      () => this.filtered(filter),
      (query) => query.select(COLUMNS).orderBy('id', 'desc'),
      page,
    );
  }

  /** Up to `limit` rows older than row `beforeId` (all when null), newest first: an export's next page. */
  before(filter: AuditFilter, beforeId: number | null, limit: number): Promise<AuditRow[]> {
    let query = this.filtered(filter);
    if (beforeId !== null) query = query.where('id', '<', beforeId);
    return query.select(COLUMNS).orderBy('id', 'desc').limit(limit).execute();
  }
}
