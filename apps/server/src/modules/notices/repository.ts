import type { Insertable } from 'kysely';
import type { Db, DbOrTx } from '../../db/index.js';
import type { NoticesTable } from '../../db/schema.js';

/** SQL of stored notices (the ones not worked out from other tables, like unread letters). */
export class NoticeRepository {
  constructor(private readonly db: Db) {}

  async insert(tx: DbOrTx, row: Insertable<NoticesTable>): Promise<void> {
    await tx.insertInto('notices').values(row).execute();
  }

  /** The newest notices for one agent, and those for every Admin when the agent is one. */
  listFor(agentId: number, admin: boolean, since: string, limit: number) {
    return this.db
      .selectFrom('notices')
      .selectAll()
      .where('created_at', '>=', since)
      .where((eb) => (admin ? eb.or([eb('agent_id', '=', agentId), eb('audience', '=', 'admins')]) : eb('agent_id', '=', agentId)))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  async deleteBefore(before: string): Promise<void> {
    await this.db.deleteFrom('notices').where('created_at', '<', before).execute();
  }
}
