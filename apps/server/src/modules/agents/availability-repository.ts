import { can } from '@parley/protocol';
import type { Db, DbOrTx } from '../../db/index.js';
import { consoleOpen } from '../../db/presence.js';
import { permissionsOf } from '../auth/service.js';

/** SQL of agents as the workbench sees them: availability, open consoles, and who may be told what. */
export class AgentAvailabilityRepository {
  constructor(readonly db: Db) {}

  /** Agents who may be given a conversation: enabled, online (state '0'), with a console open somewhere. */
  available(db: DbOrTx, presentSince: string) {
    return db
      .selectFrom('agents')
      .select(['uuid', 'nickname', 'avatar', 'max_chats'])
      .where('disabled', '=', 0)
      .where('state', '=', '0')
      .where((eb) => consoleOpen(eb, presentSince))
      .orderBy('id')
      .execute();
  }

  /** Every enabled agent, with whether a console of theirs is open anywhere and how many conversations they hold. */
  peers(presentSince: string) {
    return this.db
      .selectFrom('agents')
      .select((eb) => [
        'agents.uuid',
        'agents.username',
        'agents.nickname',
        'agents.avatar',
        'agents.state',
        'agents.max_chats',
        consoleOpen(eb, presentSince).as('present'),
        eb
          .selectFrom('visitors')
          .select((inner) => inner.fn.countAll<number>().as('n'))
          .where('visitors.state', '=', 'current')
          .whereRef('visitors.service_id', '=', 'agents.uuid')
          .as('open'),
      ])
      .where('agents.disabled', '=', 0)
      .orderBy('agents.id')
      .execute();
  }

  findByUuid(db: DbOrTx, uuid: string) {
    return db
      .selectFrom('agents')
      .select(['id', 'uuid', 'nickname', 'avatar', 'state', 'disabled', 'max_chats'])
      .where('uuid', '=', uuid)
      .executeTakeFirst();
  }

  /** Whether the agent has a console open on some process now. */
  async isPresent(uuid: string, presentSince: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('agent_presence')
      .select('agent_uuid')
      .where('agent_uuid', '=', uuid)
      .where('seen_at', '>', presentSince)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async updateState(uuid: string, state: string, db: DbOrTx = this.db): Promise<void> {
    await db.updateTable('agents').set({ state }).where('uuid', '=', uuid).execute();
  }

  /** The uuids of enabled agents who hold `permission` (the Admin role holds every one). */
  async holdersOf(permission: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('agents')
      .innerJoin('roles', 'roles.id', 'agents.role_id')
      .select(['agents.uuid', 'roles.name', 'roles.permissions'])
      .where('agents.disabled', '=', 0)
      .execute();
    return rows
      .filter((row) => can({ roles: [row.name], permissions: permissionsOf(row.name, row.permissions) }, { permission: [permission] }))
      .map((row) => row.uuid);
  }
}
