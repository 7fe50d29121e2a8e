import type { Insertable, Updateable } from 'kysely';
import type { Db, DbOrTx } from '../../db/index.js';
import { type Page, paginate } from '../../db/paginate.js';
import type { FriendlyTable } from '../../db/schema.js';
import { containsText } from '../../db/sql.js';

const SEARCHED = ['name', 'company', 'phone', 'email', 'wechat', 'remark'] as const;

/** SQL of the friendly-contact address book. */
export class FriendlyRepository {
  constructor(private readonly db: Db) {}

  list(keyword: string | undefined, page: Page) {
    return paginate(
      () => {
        const query = this.db.selectFrom('friendly');
        if (!keyword) return query;
        return query.where((eb) => eb.or(SEARCHED.map((column) => containsText(`friendly.${column}`, keyword))));
      },
      (query) => query.selectAll().orderBy('id', 'desc'),
      page,
    );
  }

  findById(db: DbOrTx, id: number) {
    return db.selectFrom('friendly').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findMany(db: DbOrTx, ids: number[]) {
    return db.selectFrom('friendly').select(['id', 'name']).where('id', 'in', ids).orderBy('id').execute();
  }

  async insert(db: DbOrTx, row: Insertable<FriendlyTable>): Promise<number> {
    const inserted = await db.insertInto('friendly').values(row).returning('id').executeTakeFirstOrThrow();
    return inserted.id;
  }

  async update(db: DbOrTx, id: number, changes: Updateable<FriendlyTable>): Promise<void> {
    await db.updateTable('friendly').set(changes).where('id', '=', id).execute();
  }

  async deleteMany(db: DbOrTx, ids: number[]): Promise<void> {
    await db.deleteFrom('friendly').where('id', 'in', ids).execute();
  }
}
