import type { Db } from '../../db/index.js';

/** SQL of sessions and the login log. */
export class AuthRepository {
  constructor(private readonly db: Db) {}

  findAgentByUsername(username: string) {
    return this.db.selectFrom('agents').select(['id', 'password_hash', 'disabled']).where('username', '=', username).executeTakeFirst();
  }

  /** The session behind a token hash, with what a request needs to know of its agent and role. */
  findSession(tokenHash: string) {
    return this.db
      .selectFrom('sessions')
      .innerJoin('agents', 'agents.id', 'sessions.agent_id')
      .innerJoin('roles', 'roles.id', 'agents.role_id')
      .select([
        'sessions.id as sessionId',
        'sessions.expires_at',
        'sessions.refresh_until',
        'sessions.revoked',
        'agents.id as agentId',
        'agents.uuid',
        'agents.username',
        'agents.nickname',
        'agents.avatar',
        'agents.disabled',
        'roles.name as roleName',
        'roles.permissions',
      ])
      .where('sessions.token_hash', '=', tokenHash)
      .executeTakeFirst();
  }

  async insertSession(row: { agent_id: number; token_hash: string; expires_at: string; refresh_until: string; created_at: string }) {
    const inserted = await this.db
      .insertInto('sessions')
      .values({ ...row, revoked: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    return inserted.id;
  }

  /** Marks a session revoked, only if it was live; tells whether this call did it. */
  async revokeSession(sessionId: number): Promise<boolean> {
    const result = await this.db
      .updateTable('sessions')
      .set({ revoked: 1 })
      .where('id', '=', sessionId)
      .where('revoked', '=', 0)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async revokeAgentSessions(agentId: number): Promise<void> {
    await this.db.updateTable('sessions').set({ revoked: 1 }).where('agent_id', '=', agentId).where('revoked', '=', 0).execute();
  }

  /** Sessions that can no longer be refreshed are of no use to anyone. */
  async deleteDeadSessions(before: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('refresh_until', '<', before).execute();
  }

  async insertLoginRecord(row: {
    username: string;
    agent_id: number | null;
    ip: string;
    user_agent: string;
    result: 'success' | 'failure';
    reason: string;
    counted: number;
    created_at: string;
  }): Promise<void> {
    await this.db.insertInto('login_log').values(row).execute();
  }

  /** Counted failures since `since` for this username and for this address, separately. */
  async countRecentFailures(username: string, ip: string, since: string) {
    const count = async (column: 'username' | 'ip', value: string) => {
      const row = await this.db
        .selectFrom('login_log')
        .select((eb) => [eb.fn.countAll<number>().as('failures'), eb.fn.min('created_at').as('oldest')])
        .where(column, '=', value)
        .where('counted', '=', 1)
        .where('created_at', '>', since)
        .executeTakeFirstOrThrow();
      return { failures: Number(row.failures), oldest: row.oldest };
    };
    return { byUsername: await count('username', username), byIp: await count('ip', ip) };
  }
}
