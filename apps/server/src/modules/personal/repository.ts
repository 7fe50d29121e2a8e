import type { Db, DbOrTx } from '../../db/index.js';

/** SQL of an agent's own profile (the `/api/personal` area). */
export class PersonalRepository {
  constructor(private readonly db: Db) {}

  find(agentId: number) {
    return this.db
      .selectFrom('agents')
      .select([
        'username',
        'nickname',
        'avatar',
        'password_hash',
        'notify_new_user',
        'notify_new_msg',
        'notify_sound',
        'notify_transfer',
        'notify_letter',
        'email',
        'mfa_enabled',
      ])
      .where('id', '=', agentId)
      .executeTakeFirst();
  }

  async update(
    tx: DbOrTx,
    agentId: number,
    fields: {
      nickname: string;
      avatar: string;
      email?: string;
      password_hash?: string;
      password_change_required?: number;
      notify_new_user: number | null;
      notify_new_msg: number | null;
      notify_sound: number | null;
      notify_transfer?: number | null;
      notify_letter?: number | null;
      updated_at: string;
    },
  ): Promise<void> {
    await tx.updateTable('agents').set(fields).where('id', '=', agentId).execute();
  }
}
