import { sql } from 'kysely';
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

  /**
   * Takes one attempt slot of a key in a single statement: a new key or a key whose window began at or
   * before `since` starts a new window; otherwise the slot is taken only while fewer than `limit` are.
   * Answers the key's window start, or undefined when the key is at its limit.
   */
  async reserveAttempt(key: string, limit: number, now: string, since: string): Promise<string | undefined> {
    const windowStart = sql.ref('login_attempts.window_start');
    const attempts = sql.ref('login_attempts.attempts');
    const row = await this.db
      .insertInto('login_attempts')
      .values({ key, attempts: 1, window_start: now })
      .onConflict((conflict) =>
        conflict
          .column('key')
          .doUpdateSet({
            attempts: sql<number>`case when ${windowStart} <= ${since} then 1 else ${attempts} + 1 end`,
            window_start: sql<string>`case when ${windowStart} <= ${since} then ${now} else ${windowStart} end`,
          })
          .where((eb) => eb.or([eb('login_attempts.window_start', '<=', since), eb('login_attempts.attempts', '<', limit)])),
      )
      .returning('window_start')
      .executeTakeFirst();
    return row?.window_start;
  }

  /** Gives back a slot taken in the window that began at `windowStart` (a later window is left alone). */
  async releaseAttempt(key: string, windowStart: string): Promise<void> {
    await this.db
      .updateTable('login_attempts')
      .set((eb) => ({ attempts: eb('attempts', '-', 1) }))
      .where('key', '=', key)
      .where('window_start', '=', windowStart)
      .where('attempts', '>', 0)
      .execute();
  }

  async findAttemptWindow(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('login_attempts').select('window_start').where('key', '=', key).executeTakeFirst();
    return row?.window_start;
  }

  async deleteAttemptsBefore(since: string): Promise<void> {
    await this.db.deleteFrom('login_attempts').where('window_start', '<=', since).execute();
  }
}
