import type { MfaEnabled, MfaSetup } from '@parley/protocol';
import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../lib/caller.js';
import { ApiError, conflict, unauthorized } from '../../lib/errors.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { Notices } from '../notices/service.js';
import type { MfaCodes } from './mfa-codes.js';
import type { MfaRepository } from './mfa-repository.js';
import type { AuthService, ClientMeta } from './service.js';
import { enrolment, newRecoveryCodes, newTotpSecret, recoveryCodeHash } from './totp.js';

/**
 * Two-factor sign-in (TOTP, RFC 6238) of one's own account: setting it up, turning it on and off. Each
 * change is noticed to the agent (and mailed) and recorded in the audit log, in its own transaction.
 */
export class Mfa {
  constructor(
    private readonly db: Db,
    private readonly repo: MfaRepository,
    private readonly codes: MfaCodes,
    private readonly auth: AuthService,
    private readonly notices: Notices,
    private readonly audit: AuditLog,
    /** The name the authenticator app shows beside the account. */
    private readonly issuer: () => string,
    private readonly now: () => number,
  ) {}

  private async agent(agentId: number) {
    const agent = await this.repo.findAgent(agentId);
    // The session outlived its account (deleted meanwhile): it is as good as signed out.
    if (!agent) throw unauthorized();
    return agent;
  }

  /** A fresh seed to scan; it replaces any earlier one not yet confirmed, and takes effect only once confirmed. */
  async setup(auth: AuthContext): Promise<MfaSetup> {
    const agent = await this.agent(auth.agentId);
    if (agent.mfa_enabled) throw conflict('mfaAlreadyEnabled');
    const secret = newTotpSecret();
    await this.repo.setPendingSecret(agent.id, this.codes.seal(secret));
    return { secret, ...(await enrolment(secret, this.issuer() || 'Parley', agent.username)) };
  }

  /** Turns two-factor sign-in on once a code of the seed being set up is right; answers the recovery codes, once. */
  async enable(auth: AuthContext, code: string, client: ClientMeta): Promise<MfaEnabled> {
    const agent = await this.agent(auth.agentId);
    if (agent.mfa_enabled) throw conflict('mfaAlreadyEnabled');
    const pending = agent.mfa_pending_secret;
    if (!pending) throw new ApiError(400, 'mfaNotSetUp');
    const step = this.codes.stepOf(pending, code);
    if (step === undefined) throw new ApiError(400, 'mfaCodeWrong');
    const recoveryCodes = newRecoveryCodes();
    const at = new Date(this.now()).toISOString();
    await this.db.transaction().execute(async (tx) => {
      if (!(await this.repo.takeStep(tx, agent.id, step))) throw new ApiError(400, 'mfaCodeWrong');
      // Confirmed twice at once, or set up again meanwhile: only the seed the code belongs to is turned on.
      if (!(await this.repo.enable(tx, agent.id, pending, at))) throw conflict('mfaAlreadyEnabled');
      await this.repo.replaceRecoveryCodes(tx, agent.id, recoveryCodes.map(recoveryCodeHash), at);
      await this.notices.toAgent(tx, agent.id, 'mfaEnabled', { ip: client.ip });
      await this.audit.record(tx, {
        actor: auth.username,
        actorId: auth.agentId,
        ip: client.ip,
        action: 'mfa.enable',
        target: `agent:${agent.username}`,
      });
    });
    this.notices.mailTo(agent.email, 'mfaEnabled', { ip: client.ip });
    return { recoveryCodes };
  }

  /**
   * Turns two-factor sign-in off: a code (TOTP or recovery) proves the caller still holds the second
   * factor. Wrong codes count with the failed-login limits, as at sign-in: a stolen session cannot guess.
   */
  async disable(auth: AuthContext, code: string, client: ClientMeta): Promise<void> {
    const agent = await this.agent(auth.agentId);
    if (!agent.mfa_enabled || !agent.mfa_secret) throw new ApiError(400, 'mfaNotEnabled');
    const secret = agent.mfa_secret;
    await this.auth.guessWithinLimits(
      agent.username,
      client.ip,
      this.now(),
      async () => undefined,
      async (failed) => {
        const done = await this.db.transaction().execute(async (tx) => {
          if (!(await this.codes.verify(tx, { id: agent.id, mfa_secret: secret }, code))) return false;
          await this.repo.disable(tx, agent.id, new Date(this.now()).toISOString());
          await this.notices.toAgent(tx, agent.id, 'mfaDisabled', { ip: client.ip });
          await this.audit.record(tx, {
            actor: auth.username,
            actorId: auth.agentId,
            ip: client.ip,
            action: 'mfa.disable',
            target: `agent:${agent.username}`,
          });
          return true;
        });
        if (!done) {
          failed();
          throw new ApiError(400, 'mfaCodeWrong');
        }
      },
    );
    this.notices.mailTo(agent.email, 'mfaDisabled', { ip: client.ip });
  }

  async recoveryCodesLeft(agentId: number): Promise<number> {
    return this.repo.recoveryCodesLeft(agentId);
  }
}
