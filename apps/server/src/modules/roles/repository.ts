import type { Db, DbOrTx } from '../../db/index.js';
import { type Page, paginate } from '../../db/paginate.js';
import { containsText } from '../../db/sql.js';

/** SQL of roles. */
export class RoleRepository {
  constructor(private readonly db: Db) {}

  findById(db: DbOrTx, id: number) {
    return db.selectFrom('roles').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByName(db: DbOrTx, name: string) {
    return db.selectFrom('roles').selectAll().where('name', '=', name).executeTakeFirst();
  }

  list(name: string | undefined, page: Page) {
    return paginate(
      () => {
        const query = this.db.selectFrom('roles');
        return name ? query.where(containsText('roles.name', name)) : query;
      },
      (query) =>
        query
          .select((eb) => [
            'roles.id',
            'roles.name',
            'roles.permissions',
            'roles.builtin',
            'roles.created_at',
            eb.selectFrom('agents').select(eb.fn.countAll<number>().as('n')).whereRef('agents.role_id', '=', 'roles.id').as('agents'),
          ])
          .orderBy('roles.id'),
      page,
    );
  }

  async insert(db: DbOrTx, row: { name: string; permissions: string; builtin: number; created_at: string }): Promise<number> {
    const inserted = await db.insertInto('roles').values(row).returning('id').executeTakeFirstOrThrow();
    return inserted.id;
  }

  async update(db: DbOrTx, id: number, changes: { name: string; permissions: string }): Promise<void> {
    await db.updateTable('roles').set(changes).where('id', '=', id).execute();
  }

  async countAgents(db: DbOrTx, roleIds: number[]): Promise<number> {
    const row = await db
      .selectFrom('agents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('role_id', 'in', roleIds)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  findMany(db: DbOrTx, ids: number[]) {
    return db.selectFrom('roles').selectAll().where('id', 'in', ids).execute();
  }

  /** The distinct roles held by these agents. */
  findOfAgents(db: DbOrTx, agentIds: number[]) {
    return db
      .selectFrom('roles')
      .selectAll()
      .where('id', 'in', (eb) => eb.selectFrom('agents').select('agents.role_id').where('agents.id', 'in', agentIds))
      .execute();
  }

  async deleteMany(db: DbOrTx, ids: number[]): Promise<void> {
    await db.deleteFrom('roles').where('id', 'in', ids).execute();
  }
}
