import type { DbOrTx } from '../../db/index.js';
import type { Sealer } from '../../lib/sealed.js';
import type { MfaRepository } from './mfa-repository.js';
import { isTotpCode, MFA_SEAL_PURPOSE, matchingStep, recoveryCodeHash } from './totp.js';

/**
 * Checks two-factor codes. Seeds are stored sealed; recovery codes as hashes. A code, TOTP or recovery, is
 * taken once: a TOTP code's time step must be later than the last one taken, a recovery code is used up.
 */
export class MfaCodes {
  constructor(
    private readonly repo: MfaRepository,
    private readonly sealer: Sealer,
    private readonly now: () => number,
  ) {}

  seal(secret: string): string {
    return this.sealer.seal(secret, MFA_SEAL_PURPOSE);
  }

  /** The step of a right code for a sealed seed, not yet taken; undefined for a wrong code. */
  stepOf(sealed: string, code: string): number | undefined {
    return matchingStep(this.sealer.open(sealed, MFA_SEAL_PURPOSE), code, this.now());
  }

  /**
   * Whether `code` is a right code for the agent now, taking it (its time step, or the recovery code) in
   * `tx`: a code already taken is wrong.
   */
  async verify(tx: DbOrTx, agent: { id: number; mfa_secret: string }, code: string): Promise<boolean> {
    if (isTotpCode(code)) {
      const step = this.stepOf(agent.mfa_secret, code);
      return step !== undefined && (await this.repo.takeStep(tx, agent.id, step));
    }
    return this.repo.useRecoveryCode(tx, agent.id, recoveryCodeHash(code), new Date(this.now()).toISOString());
  }
}
