import type { SelectQueryBuilder } from 'kysely';
import { countRows, exactCount } from './count.js';
import type { DialectName } from './dialect.js';
import type { DbOrTx } from './handles.js';

/** A list page as the back office asks for it: 1-based page number and its size. */
export interface Page {
  pageNo: number;
  pageSize: number;
}

/**
 * One page of a list and the total of its filtered rows. `base` builds the filtered query afresh for
 * each of the two queries, so the page and its count can never disagree on the filters. A list that may
 * hold millions of rows passes `estimateOn`: on PostgreSQL its total past EXACT_COUNT_UP_TO is then an
 * estimate (`db/count.ts`); the others are small and counted exactly.
 */
export async function paginate<DB, TB extends keyof DB, B, O, PageDB = DB, PageTB extends keyof PageDB = keyof PageDB>(
  base: () => SelectQueryBuilder<DB, TB, B>,
  /**
   * The page's columns, and joins only they need: the count reads `base` alone, so such a join must keep one
   * row per row of `base` (a left join on a key).
   */
  select: (query: SelectQueryBuilder<DB, TB, B>) => SelectQueryBuilder<PageDB, PageTB, O>,
  page: Page,
  estimateOn?: { db: DbOrTx; dialect: DialectName },
) {
  const [rows, counted] = await Promise.all([
    select(base())
      .offset((page.pageNo - 1) * page.pageSize)
      .limit(page.pageSize)
      .execute(),
    estimateOn ? countRows(estimateOn.db, estimateOn.dialect, base()) : exactCount(base()),
  ]);
  return { rows, ...counted };
}
