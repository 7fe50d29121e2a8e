import { ADMIN_ROLE } from '@parley/protocol';
import type { Db, DbOrTx } from '../../db/index.js';
import { type Page, paginate } from '../../db/paginate.js';
import { consoleOpen } from '../../db/presence.js';
import { containsText } from '../../db/sql.js';

export interface AgentFilter {
  username?: string | undefined;
  roleId?: number | undefined;
  disabled?: boolean | undefined;
}

const agentColumns = [
  'agents.id',
  'agents.uuid',
  'agents.username',
  'agents.nickname',
  'agents.avatar',
  'agents.role_id',
  'roles.name as role_name',
  'agents.state',
  'agents.max_chats',
  'agents.disabled',
  'agents.pending',
  'agents.created_at',
] as const;

/** SQL of agents (the `/api/service` area). */
export class AgentRepository {
  constructor(private readonly db: Db) {}

  private filtered(db: DbOrTx, filter: AgentFilter) {
    let query = db.selectFrom('agents').innerJoin('roles', 'roles.id', 'agents.role_id');
    if (filter.username) {
      const text = filter.username;
      query = query.where((eb) => eb.or([containsText('agents.username', text), containsText('agents.nickname', text)]));
    }
    if (filter.roleId !== undefined) query = query.where('agents.role_id', '=', filter.roleId);
    if (filter.disabled !== undefined) query = query.where('agents.disabled', '=', filter.disabled ? 1 : 0);
    return query;
  }

  /** A page of agents, each with whether a console of theirs is open anywhere (presence fresher than `presentSince`). */
  list(filter: AgentFilter, page: Page, presentSince: string) {
    return paginate(
      () => this.filtered(this.db, filter),
      (query) =>
        query
          .select(agentColumns)
          .select((eb) => consoleOpen(eb, presentSince).as('present'))
          // Newest first (CONTRACT §7): an agent just made is on the first page, however many there are.
          .orderBy('agents.id', 'desc'),
      page,
    );
  }

  findById(db: DbOrTx, id: number) {
    return db
      .selectFrom('agents')
      .innerJoin('roles', 'roles.id', 'agents.role_id')
      .select(agentColumns)
      .where('agents.id', '=', id)
      .executeTakeFirst();
  }

  /** Where an agent's account notices are mailed ('' for nowhere). */
  async findEmail(db: DbOrTx, id: number): Promise<string> {
    const row = await db.selectFrom('agents').select('email').where('id', '=', id).executeTakeFirst();
    return row?.email ?? '';
  }

  /** The agents of these ids (those that exist), as the audit log names them. */
  findNames(db: DbOrTx, ids: number[]) {
    return db.selectFrom('agents').select(['id', 'username']).where('id', 'in', ids).orderBy('id').execute();
  }

  findIdByUsername(db: DbOrTx, username: string) {
    return db.selectFrom('agents').select('id').where('username', '=', username).executeTakeFirst();
  }

  async insert(
    db: DbOrTx,
    row: {
      uuid: string;
      username: string;
      nickname: string;
      avatar: string;
      password_hash: string;
      role_id: number;
      max_chats: number;
      disabled: number;
      pending: number;
      created_at: string;
    },
  ): Promise<number> {
    const inserted = await db
      .insertInto('agents')
      .values({ ...row, state: '0', updated_at: row.created_at })
      .returning('id')
      .executeTakeFirstOrThrow();
    return inserted.id;
  }

  async update(
    db: DbOrTx,
    id: number,
    changes: Partial<{
      username: string;
      nickname: string;
      avatar: string;
      password_hash: string;
      password_change_required: number;
      role_id: number;
      max_chats: number;
      disabled: number;
      pending: number;
      updated_at: string;
    }>,
  ): Promise<void> {
    await db.updateTable('agents').set(changes).where('id', '=', id).execute();
  }

  async deleteMany(db: DbOrTx, ids: number[]): Promise<number> {
    const result = await db.deleteFrom('agents').where('id', 'in', ids).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async countEnabledAdmins(db: DbOrTx): Promise<number> {
    const row = await db
      .selectFrom('agents')
      .innerJoin('roles', 'roles.id', 'agents.role_id')
      .select((eb) => eb.fn.countAll<number>().as('admins'))
      .where('roles.name', '=', ADMIN_ROLE)
      .where('agents.disabled', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(row.admins);
  }

  async countPending(): Promise<{ count: number; latest: string | null }> {
    const row = await this.db
      .selectFrom('agents')
      .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.max('created_at').as('latest')])
      .where('pending', '=', 1)
      .executeTakeFirstOrThrow();
    return { count: Number(row.count), latest: row.latest ?? null };
  }
}
