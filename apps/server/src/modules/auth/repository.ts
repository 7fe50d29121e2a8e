import { sql } from 'kysely';
import type { Db, DbOrTx } from '../../db/index.js';

/**
 * What a request needs to know of the agent behind a credential (a session or an API token), read with
 * the agent's row joined to its role.
 */
export const CALLER_COLUMNS = [
  'agents.id as agentId',
  'agents.uuid',
  'agents.username',
  'agents.nickname',
  'agents.avatar',
  'agents.disabled',
  'roles.name as roleName',
  'roles.permissions',
] as const;

/** SQL of sessions and the login log. */
export class AuthRepository {
  constructor(private readonly db: Db) {}

  findAgentByUsername(username: string) {
    return this.db
      .selectFrom('agents')
      .select(['id', 'password_hash', 'disabled', 'mfa_enabled', 'password_change_required'])
      .where('username', '=', username)
      .executeTakeFirst();
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
        'sessions.created_at',
        'sessions.last_used_at',
        'sessions.ip',
        'sessions.user_agent',
        ...CALLER_COLUMNS,
        'agents.mfa_enabled',
        'agents.password_change_required',
      ])
      .where('sessions.token_hash', '=', tokenHash)
      .executeTakeFirst();
  }

  async insertSession(row: {
    agent_id: number;
    token_hash: string;
    expires_at: string;
    refresh_until: string;
    created_at: string;
    ip: string;
    user_agent: string;
    last_used_at: string;
  }) {
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

  /** Records a session's use; the caller writes it at most once a minute. */
  async touchSession(sessionId: number, at: string): Promise<void> {
    await this.db.updateTable('sessions').set({ last_used_at: at }).where('id', '=', sessionId).execute();
  }

  /** An agent's sessions still alive (neither revoked nor past refreshing), newest first. */
  listLiveSessions(agentId: number, now: string) {
    return this.db
      .selectFrom('sessions')
      .select(['id', 'created_at', 'last_used_at', 'ip', 'user_agent'])
      .where('agent_id', '=', agentId)
      .where('revoked', '=', 0)
      .where('refresh_until', '>', now)
      .orderBy('id', 'desc')
      .execute();
  }

  /** Revokes those of `ids` that are live sessions of the agent; answers the ones it revoked. */
  async revokeOwnSessions(tx: DbOrTx, agentId: number, ids: number[], now: string): Promise<number[]> {
    const rows = await tx
      .updateTable('sessions')
      .set({ revoked: 1 })
      .where('agent_id', '=', agentId)
      .where('id', 'in', ids)
      .where('revoked', '=', 0)
      .where('refresh_until', '>', now)
      .returning('id')
      .execute();
    return rows.map((row) => row.id);
  }

  /** How many of `ids` are live sessions of the agent. */
  async countOwnSessions(tx: DbOrTx, agentId: number, ids: number[], now: string): Promise<number> {
    const row = await tx
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('agent_id', '=', agentId)
      .where('id', 'in', ids)
      .where('revoked', '=', 0)
      .where('refresh_until', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** Marks the account as signing in with a password shorter than today's rule. */
  async requirePasswordChange(agentId: number): Promise<void> {
    await this.db.updateTable('agents').set({ password_change_required: 1 }).where('id', '=', agentId).execute();
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
            blocked_until: sql<
              string | null
            >`case when ${windowStart} <= ${since} then null else ${sql.ref('login_attempts.blocked_until')} end`,
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

  findAttempt(key: string) {
    return this.db
      .selectFrom('login_attempts')
      .select(['attempts', 'window_start', 'blocked_until'])
      .where('key', '=', key)
      .executeTakeFirst();
  }

  /**
   * Takes the next delayed turn of a key past its limit, in one statement: only if the key is as `seen`
   * (no other attempt took the turn meanwhile) and its wait is over; the next turn then waits until `until`.
   */
  async takeDelayedTurn(key: string, seen: { attempts: number; window_start: string }, now: string, until: string): Promise<boolean> {
    const result = await this.db
      .updateTable('login_attempts')
      .set({ attempts: seen.attempts + 1, blocked_until: until })
      .where('key', '=', key)
      .where('attempts', '=', seen.attempts)
      .where('window_start', '=', seen.window_start)
      .where((eb) => eb.or([eb('blocked_until', 'is', null), eb('blocked_until', '<=', now)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** The failed sign-ins of one account since a time, and from how many addresses. */
  async failuresOf(username: string, since: string): Promise<{ failures: number; addresses: number }> {
    const row = await this.db
      .selectFrom('login_log')
      .select((eb) => [eb.fn.countAll<number>().as('failures'), eb.fn.count<number>('ip').distinct().as('addresses')])
      .where('username', '=', username)
      .where('counted', '=', 1)
      .where('created_at', '>', since)
      .executeTakeFirstOrThrow();
    return { failures: Number(row.failures), addresses: Number(row.addresses) };
  }

  async findAttemptWindow(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('login_attempts').select('window_start').where('key', '=', key).executeTakeFirst();
    return row?.window_start;
  }

  async deleteAttemptsBefore(since: string): Promise<void> {
    await this.db.deleteFrom('login_attempts').where('window_start', '<=', since).execute();
  }
}
