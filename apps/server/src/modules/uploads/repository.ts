import { type Insertable, sql } from 'kysely';
import type { Db } from '../../db/index.js';
import type { UploadsTable } from '../../db/schema.js';

/** What the quotas count: a visitor's or an address's uploads since a time, or every stored upload. */
export type UsageScope =
  | { kind: 'visitor'; visitorId: number; since: string }
  | { kind: 'address'; ip: string; since: string }
  | { kind: 'total' };

/** Up to this many rows or names per statement of the sweep. */
const BATCH = 500;

export class UploadRepository {
  constructor(private readonly db: Db) {}

  async insert(row: Insertable<UploadsTable>): Promise<void> {
    await this.db.insertInto('uploads').values(row).execute();
  }

  async usage(scope: UsageScope): Promise<number> {
    let query = this.db.selectFrom('uploads').select((eb) => eb.fn.sum<number | string | null>('size').as('bytes'));
    if (scope.kind === 'visitor') query = query.where('visitor_id', '=', scope.visitorId).where('created_at', '>=', scope.since);
    if (scope.kind === 'address') query = query.where('ip', '=', scope.ip).where('created_at', '>=', scope.since);
    const row = await query.executeTakeFirst();
    return Number(row?.bytes ?? 0);
  }

  /**
   * Deletes up to one batch of uploads created before `before` that no message mentions (a message holds
   * an upload as its URL, `/api/files/<name>/<label>`), and answers their names. The check and the
   * delete are one statement, so a message stored meanwhile keeps its file.
   */
  async deleteUnreferenced(before: string): Promise<{ name: string; size: number }[]> {
    const candidates = this.db
      .selectFrom('uploads')
      .select('id')
      .where('created_at', '<', before)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('messages')
              .select(sql.lit(1).as('one'))
              .where('messages.msg', 'like', sql<string>`'%/api/files/' || ${sql.ref('uploads.name')} || '%'`),
          ),
        ),
      )
      .limit(BATCH);
    return this.db.deleteFrom('uploads').where('id', 'in', candidates).returning(['name', 'size']).execute();
  }

  /** Of these file names, the ones that have a row. */
  async known(names: string[]): Promise<Set<string>> {
    const known = new Set<string>();
    for (let start = 0; start < names.length; start += BATCH) {
      const rows = await this.db
        .selectFrom('uploads')
        .select('name')
        .where('name', 'in', names.slice(start, start + BATCH))
        .execute();
      for (const row of rows) known.add(row.name);
    }
    return known;
  }
}

export const SWEEP_BATCH = BATCH;
