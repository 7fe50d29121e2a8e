import type { Insertable, Updateable } from 'kysely';
import type { Db, DbOrTx } from '../../db/index.js';
import { type Page, paginate } from '../../db/paginate.js';
import type { LinksTable } from '../../db/schema.js';
import { containsText } from '../../db/sql.js';

/** SQL of chat links, and of the visitors they bring. */
export class LinkRepository {
  constructor(private readonly db: Db) {}

  /** Links newest first, each with the visitors it brought and their conversations. */
  list(keyword: string | undefined, page: Page) {
    return paginate(
      () => {
        const query = this.db.selectFrom('links');
        if (!keyword) return query;
        return query.where((eb) =>
          eb.or([containsText('links.name', keyword), containsText('links.key', keyword), containsText('links.remark', keyword)]),
        );
      },
      (query) =>
        query
          .select((eb) => [
            'links.id',
            'links.name',
            'links.key',
            'links.service_id',
            'links.remark',
            'links.created_at',
            eb.selectFrom('visitors').select(eb.fn.countAll<number>().as('n')).whereRef('visitors.link_id', '=', 'links.id').as('visitors'),
            eb
              .selectFrom('conversations')
              .innerJoin('visitors', 'visitors.id', 'conversations.visitor_id')
              .select(eb.fn.countAll<number>().as('n'))
              .whereRef('visitors.link_id', '=', 'links.id')
              .as('conversations'),
          ])
          .orderBy('links.id', 'desc'),
      page,
    );
  }

  findById(db: DbOrTx, id: number) {
    return db.selectFrom('links').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findMany(db: DbOrTx, ids: number[]) {
    return db.selectFrom('links').select(['id', 'name', 'key']).where('id', 'in', ids).orderBy('id').execute();
  }

  findByKey(db: DbOrTx, key: string) {
    return db.selectFrom('links').selectAll().where('key', '=', key).executeTakeFirst();
  }

  async agentExists(db: DbOrTx, uuid: string): Promise<boolean> {
    return (await db.selectFrom('agents').select('id').where('uuid', '=', uuid).executeTakeFirst()) !== undefined;
  }

  async insert(db: DbOrTx, row: Insertable<LinksTable>): Promise<number> {
    const inserted = await db.insertInto('links').values(row).returning('id').executeTakeFirstOrThrow();
    return inserted.id;
  }

  async update(db: DbOrTx, id: number, changes: Updateable<LinksTable>): Promise<void> {
    await db.updateTable('links').set(changes).where('id', '=', id).execute();
  }

  /** Deletes the links; their visitors stay, no longer tagged (the foreign key would too, where enforced). */
  async deleteMany(db: DbOrTx, ids: number[]): Promise<void> {
    await db.updateTable('visitors').set({ link_id: null }).where('link_id', 'in', ids).execute();
    await db.deleteFrom('links').where('id', 'in', ids).execute();
  }

  /** The agent uuid the visitor's link pins it to, if it came through a link that names one. */
  async pinnedAgentOf(db: DbOrTx, visitorId: number): Promise<string | null> {
    const row = await db
      .selectFrom('visitors')
      .innerJoin('links', 'links.id', 'visitors.link_id')
      .select('links.service_id')
      .where('visitors.id', '=', visitorId)
      .executeTakeFirst();
    return row?.service_id ?? null;
  }
}
