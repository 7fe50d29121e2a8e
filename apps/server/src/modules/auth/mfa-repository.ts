import type { Db, DbOrTx } from '../../db/index.js';

/** SQL of two-factor sign-in: the agents' seeds, their recovery codes and the sign-in tickets. */
export class MfaRepository {
  constructor(private readonly db: Db) {}

  findAgent(agentId: number) {
    return this.db
      .selectFrom('agents')
      .select(['id', 'username', 'email', 'mfa_enabled', 'mfa_secret', 'mfa_pending_secret', 'mfa_last_step'])
      .where('id', '=', agentId)
      .executeTakeFirst();
  }

  async setPendingSecret(agentId: number, sealed: string): Promise<void> {
    await this.db.updateTable('agents').set({ mfa_pending_secret: sealed }).where('id', '=', agentId).execute();
  }

  /**
   * Takes a time step for the agent's codes: only if it is later than the last one taken, so that one
   * code signs in (or confirms) once however many requests carry it at once.
   */
  async takeStep(tx: DbOrTx, agentId: number, step: number): Promise<boolean> {
    const result = await tx
      .updateTable('agents')
      .set({ mfa_last_step: step })
      .where('id', '=', agentId)
      .where((eb) => eb.or([eb('mfa_last_step', 'is', null), eb('mfa_last_step', '<', step)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Turns two-factor sign-in on with the confirmed seed, only if it is still the one being set up. */
  async enable(tx: DbOrTx, agentId: number, pending: string, at: string): Promise<boolean> {
    const result = await tx
      .updateTable('agents')
      .set({ mfa_enabled: 1, mfa_secret: pending, mfa_pending_secret: null, updated_at: at })
      .where('id', '=', agentId)
      .where('mfa_enabled', '=', 0)
      .where('mfa_pending_secret', '=', pending)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async disable(tx: DbOrTx, agentId: number, at: string): Promise<boolean> {
    const result = await tx
      .updateTable('agents')
      .set({ mfa_enabled: 0, mfa_secret: null, mfa_pending_secret: null, updated_at: at })
      .where('id', '=', agentId)
      .where('mfa_enabled', '=', 1)
      .executeTakeFirst();
    await tx.deleteFrom('mfa_recovery_codes').where('agent_id', '=', agentId).execute();
    return Number(result.numUpdatedRows) === 1;
  }

  async replaceRecoveryCodes(tx: DbOrTx, agentId: number, hashes: string[], at: string): Promise<void> {
    await tx.deleteFrom('mfa_recovery_codes').where('agent_id', '=', agentId).execute();
    await tx
      .insertInto('mfa_recovery_codes')
      .values(hashes.map((code_hash) => ({ agent_id: agentId, code_hash, used_at: null, created_at: at })))
      .execute();
  }

  /** Uses up a recovery code of the agent: true only for the one call that found it unused. */
  async useRecoveryCode(tx: DbOrTx, agentId: number, hash: string, at: string): Promise<boolean> {
    const result = await tx
      .updateTable('mfa_recovery_codes')
      .set({ used_at: at })
      .where('agent_id', '=', agentId)
      .where('code_hash', '=', hash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async recoveryCodesLeft(agentId: number): Promise<number> {
    const row = await this.db
      .selectFrom('mfa_recovery_codes')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('agent_id', '=', agentId)
      .where('used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async insertTicket(row: { ticket_hash: string; agent_id: number; ip: string; user_agent: string; expires_at: string }): Promise<void> {
    await this.db.insertInto('mfa_tickets').values(row).execute();
  }

  /** A ticket still good for a code: unused, unexpired, and not worn out by wrong codes. */
  findTicket(ticketHash: string, now: string, maxFailures: number) {
    return this.db
      .selectFrom('mfa_tickets')
      .innerJoin('agents', 'agents.id', 'mfa_tickets.agent_id')
      .select([
        'mfa_tickets.agent_id',
        'mfa_tickets.ip',
        'mfa_tickets.user_agent',
        'agents.username',
        'agents.disabled',
        'agents.mfa_enabled',
        'agents.mfa_secret',
      ])
      .where('mfa_tickets.ticket_hash', '=', ticketHash)
      .where('mfa_tickets.used', '=', 0)
      .where('mfa_tickets.expires_at', '>', now)
      .where('mfa_tickets.failures', '<', maxFailures)
      .executeTakeFirst();
  }

  async failTicket(ticketHash: string): Promise<void> {
    await this.db
      .updateTable('mfa_tickets')
      .set((eb) => ({ failures: eb('failures', '+', 1) }))
      .where('ticket_hash', '=', ticketHash)
      .execute();
  }

  /** Spends a ticket: true only for the one call that found it unused. */
  async useTicket(tx: DbOrTx, ticketHash: string): Promise<boolean> {
    const result = await tx
      .updateTable('mfa_tickets')
      .set({ used: 1 })
      .where('ticket_hash', '=', ticketHash)
      .where('used', '=', 0)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async deleteTicketsBefore(before: string): Promise<void> {
    await this.db.deleteFrom('mfa_tickets').where('expires_at', '<', before).execute();
  }
}
