import type { Personal, personalBody, SettingsOf } from '@parley/protocol';
import type { z } from 'zod';
import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../lib/caller.js';
import { unauthorized } from '../../lib/errors.js';
import { assertUncommonPassword, hashPassword, verifyPassword } from '../../lib/password.js';
import { ValidationError } from '../../lib/validate.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { MfaRepository } from '../auth/mfa-repository.js';
import type { AuthService, ClientMeta } from '../auth/service.js';
import type { Notices } from '../notices/service.js';
import type { PersonalRepository } from './repository.js';

/** One's own profile: name, picture, password and notification choices. */
export class PersonalService {
  constructor(
    private readonly db: Db,
    private readonly repo: PersonalRepository,
    private readonly auth: AuthService,
    private readonly team: () => SettingsOf<'desktopSetting'>,
    private readonly security: { mfaRepo: MfaRepository; notices: Notices; audit: AuditLog; now: () => number },
  ) {}

  /** The team's desktop settings as an agent's choices: what an agent who has not chosen gets. */
  private teamNotify(): Personal['notify'] {
    return teamNotify(this.team());
  }

  async get(agentId: number): Promise<Personal> {
    const row = await this.repo.find(agentId);
    // The session outlived its account (deleted meanwhile): it is as good as signed out.
    if (!row) throw unauthorized();
    const team = this.teamNotify();
    return {
      email: row.email,
      mfa: {
        enabled: row.mfa_enabled === 1,
        recoveryCodesLeft: row.mfa_enabled ? await this.security.mfaRepo.recoveryCodesLeft(agentId) : 0,
      },
      username: row.username,
      nickname: row.nickname,
      avatar: row.avatar,
      notify: {
        newUser: chosen(row.notify_new_user) ?? team.newUser,
        newMsg: chosen(row.notify_new_msg) ?? team.newMsg,
        sound: chosen(row.notify_sound) ?? team.sound,
        transfer: chosen(row.notify_transfer) ?? team.transfer,
        letter: chosen(row.notify_letter) ?? team.letter,
      },
    };
  }

  /**
   * Saves the profile. A new password needs the current one, follows the password policy, and ends every
   * session of the account (this one included): whoever knew the old password is signed out. Wrong
   * current passwords count with the failed-login limits, so a session left open cannot guess the password.
   */
  async save(auth: AuthContext, input: z.output<typeof personalBody>, client: ClientMeta): Promise<Personal> {
    const { agentId } = auth;
    const row = await this.repo.find(agentId);
    if (!row) throw unauthorized();
    const team = this.teamNotify();
    let passwordHash: string | undefined;
    if (input.password !== undefined) {
      const oldPassword = input.oldPassword;
      if (!oldPassword) throw new ValidationError('oldPassword', 'reasonRequired', {});
      await this.auth.guessWithinLimits(
        row.username,
        client.ip,
        this.security.now(),
        async () => undefined,
        async (failed) => {
          if (await verifyPassword(row.password_hash, oldPassword)) return;
          failed();
          throw new ValidationError('oldPassword', 'reasonWrongPassword', {});
        },
        'passwordGuessesLimited',
      );
      assertUncommonPassword(input.password);
      passwordHash = await hashPassword(input.password);
    }
    const at = new Date(this.security.now()).toISOString();
    await this.db.transaction().execute(async (tx) => {
      await this.repo.update(tx, agentId, {
        nickname: input.nickname,
        avatar: input.avatar,
        ...(input.email !== undefined ? { email: input.email } : {}),
        ...(passwordHash ? { password_hash: passwordHash, password_change_required: 0 } : {}),
        // A choice equal to the team's is stored as none, so that it keeps following the team's settings.
        notify_new_user: ownChoice(input.notify.newUser, team.newUser),
        notify_new_msg: ownChoice(input.notify.newMsg, team.newMsg),
        notify_sound: ownChoice(input.notify.sound, team.sound),
        ...(input.notify.transfer !== undefined ? { notify_transfer: ownChoice(input.notify.transfer, team.transfer) } : {}),
        ...(input.notify.letter !== undefined ? { notify_letter: ownChoice(input.notify.letter, team.letter) } : {}),
        updated_at: at,
      });
      if (!passwordHash) return;
      await this.security.notices.toAgent(tx, agentId, 'passwordChanged', { ip: client.ip });
      await this.security.audit.record(tx, {
        actor: auth.username,
        actorId: agentId,
        ip: client.ip,
        action: 'password.change',
        target: `agent:${row.username}`,
      });
    });
    if (passwordHash) {
      // The address known before this save: whoever changes the password cannot also silence the mail.
      this.security.notices.mailTo(row.email || input.email || '', 'passwordChanged', { ip: client.ip });
      await this.auth.revokeAgent(agentId);
    }
    return this.get(agentId);
  }
}

/** The team's desktop settings as an agent's choices (shared with the push sender, which reads them per agent). */
export function teamNotify(team: SettingsOf<'desktopSetting'>): Personal['notify'] {
  return {
    newUser: team.notifyNewUser,
    newMsg: team.notifyNewMsg,
    sound: team.newUserSound !== '' || team.newMsgSound !== '',
    transfer: team.notifyTransfer,
    letter: team.notifyLetter,
  };
}

export function chosen(stored: number | null): boolean | undefined {
  return stored === null ? undefined : stored === 1;
}

function ownChoice(value: boolean, team: boolean): number | null {
  if (value === team) return null;
  return value ? 1 : 0;
}
