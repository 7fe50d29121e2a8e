import type { SelectQueryBuilder } from 'kysely';

/** A list page as the back office asks for it: 1-based page number and its size. */
export interface Page {
  pageNo: number;
  pageSize: number;
}

/**
 * One page of a list and the total of its filtered rows. `base` builds the filtered query afresh for
 * each of the two queries, so the page and its count can never disagree on the filters.
 */
export async function paginate<DB, TB extends keyof DB, B, O>(
  base: () => SelectQueryBuilder<DB, TB, B>,
  select: (query: SelectQueryBuilder<DB, TB, B>) => SelectQueryBuilder<DB, TB, O>,
  page: Page,
) {
  const [rows, counted] = await Promise.all([
    select(base())
      .offset((page.pageNo - 1) * page.pageSize)
      .limit(page.pageSize)
      .execute(),
    base()
      .select((eb) => eb.fn.countAll<number>().as('total'))
      // Kysely cannot resolve a selection over a generic schema; the one column selected here is `total`.
      .$castTo<{ total: number }>()
      .executeTakeFirstOrThrow(),
  ]);
  // The int8 type parser in db/index.ts makes PostgreSQL's count a number; Number() keeps it one whatever the driver answers.
  return { rows, total: Number(counted.total) };
}
