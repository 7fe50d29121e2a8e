import type { Personal, personalBody, SettingsOf } from '@parley/protocol';
import type { z } from 'zod';
import { unauthorized } from '../../lib/errors.js';
import { assertUncommonPassword, hashPassword, verifyPassword } from '../../lib/password.js';
import { isoNow } from '../../lib/time.js';
import { ValidationError } from '../../lib/validate.js';
import type { AuthService } from '../auth/service.js';
import type { PersonalRepository } from './repository.js';

/** One's own profile: name, picture, password and notification choices. */
export class PersonalService {
  constructor(
    private readonly repo: PersonalRepository,
    private readonly auth: AuthService,
    private readonly team: () => SettingsOf<'desktopSetting'>,
  ) {}

  /** The team's desktop settings as an agent's three choices: what an agent who has not chosen gets. */
  private teamNotify(): Personal['notify'] {
    const team = this.team();
    return { newUser: team.notifyNewUser, newMsg: team.notifyNewMsg, sound: team.newUserSound !== '' || team.newMsgSound !== '' };
  }

  async get(agentId: number): Promise<Personal> {
    const row = await this.repo.find(agentId);
    // The session outlived its account (deleted meanwhile): it is as good as signed out.
    if (!row) throw unauthorized();
    const team = this.teamNotify();
    return {
      username: row.username,
      nickname: row.nickname,
      avatar: row.avatar,
      notify: {
        newUser: chosen(row.notify_new_user) ?? team.newUser,
        newMsg: chosen(row.notify_new_msg) ?? team.newMsg,
        sound: chosen(row.notify_sound) ?? team.sound,
      },
    };
  }

  /**
   * Saves the profile. A new password needs the current one, follows the password policy, and ends every
   * session of the account (this one included): whoever knew the old password is signed out.
   */
  async save(agentId: number, input: z.output<typeof personalBody>): Promise<Personal> {
    const row = await this.repo.find(agentId);
    if (!row) throw unauthorized();
    const team = this.teamNotify();
    let passwordHash: string | undefined;
    if (input.password !== undefined) {
      if (!input.oldPassword) throw new ValidationError('oldPassword', 'reasonRequired', {});
      if (!(await verifyPassword(row.password_hash, input.oldPassword))) {
        throw new ValidationError('oldPassword', 'reasonWrongPassword', {});
      }
      assertUncommonPassword(input.password);
      passwordHash = await hashPassword(input.password);
    }
    await this.repo.update(agentId, {
      nickname: input.nickname,
      avatar: input.avatar,
      ...(passwordHash ? { password_hash: passwordHash } : {}),
      // A choice equal to the team's is stored as none, so that it keeps following the team's settings.
      notify_new_user: ownChoice(input.notify.newUser, team.newUser),
      notify_new_msg: ownChoice(input.notify.newMsg, team.newMsg),
      notify_sound: ownChoice(input.notify.sound, team.sound),
      updated_at: isoNow(),
    });
    if (passwordHash) await this.auth.revokeAgent(agentId);
    return this.get(agentId);
  }
}

function chosen(stored: number | null): boolean | undefined {
  return stored === null ? undefined : stored === 1;
}

function ownChoice(value: boolean, team: boolean): number | null {
  if (value === team) return null;
  return value ? 1 : 0;
}
