import type { Personal, personalBody } from '@parley/protocol';
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
  ) {}

  async get(agentId: number): Promise<Personal> {
    const row = await this.repo.find(agentId);
    // The session outlived its account (deleted meanwhile): it is as good as signed out.
    if (!row) throw unauthorized();
    return {
      username: row.username,
      nickname: row.nickname,
      avatar: row.avatar,
      notify: { newUser: row.notify_new_user === 1, newMsg: row.notify_new_msg === 1, sound: row.notify_sound === 1 },
    };
  }

  /**
   * Saves the profile. A new password needs the current one, follows the password policy, and ends every
   * session of the account (this one included): whoever knew the old password is signed out.
   */
  async save(agentId: number, input: z.output<typeof personalBody>): Promise<Personal> {
    const row = await this.repo.find(agentId);
    if (!row) throw unauthorized();
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
      notify_new_user: input.notify.newUser ? 1 : 0,
      notify_new_msg: input.notify.newMsg ? 1 : 0,
      notify_sound: input.notify.sound ? 1 : 0,
      updated_at: isoNow(),
    });
    if (passwordHash) await this.auth.revokeAgent(agentId);
    return this.get(agentId);
  }
}
