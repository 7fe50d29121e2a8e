import type { Db } from '../../db/index.js';
import { type Page, paginate } from '../../db/paginate.js';
import { containsText } from '../../db/sql.js';

export interface RecordFilter {
  username?: string | undefined;
  result?: 'success' | 'failure' | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** SQL of the login log, read side. */
export class RecordRepository {
  constructor(private readonly db: Db) {}

  private filtered(filter: RecordFilter) {
    let query = this.db.selectFrom('login_log');
    if (filter.username) query = query.where(containsText('login_log.username', filter.username));
    if (filter.result) query = query.where('result', '=', filter.result);
    if (filter.from) query = query.where('created_at', '>=', filter.from);
    if (filter.to) query = query.where('created_at', '<=', filter.to);
    return query;
  }

  list(filter: RecordFilter, page: Page) {
    return paginate(
      () => this.filtered(filter),
      (query) => query.select(['id', 'username', 'ip', 'user_agent', 'result', 'reason', 'created_at']).orderBy('id', 'desc'),
      page,
    );
  }
}
