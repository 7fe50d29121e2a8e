import { randomBytes, randomUUID } from 'node:crypto';
import { ADMIN_ROLE, AGENT_ROLE, type Permission } from '@parley/protocol';
import { hashPassword } from '../lib/password.js';
import { isoNow } from '../lib/time.js';
import type { Db } from './index.js';

const AGENT_PERMISSIONS: Permission[] = ['seePermissions:seeHistorical'];

export interface SeedResult {
  /** Set only when the first administrator was created just now with a generated password. */
  generatedPassword?: string;
  createdAdmin?: string;
}

/** First start only: the two built-in roles and the first administrator. Later starts change nothing. */
export async function seed(db: Db, adminUsername: string, adminPassword: string | undefined): Promise<SeedResult> {
  const now = isoNow();
  return db.transaction().execute(async (tx) => {
    for (const [name, permissions] of [
      [ADMIN_ROLE, []],
      [AGENT_ROLE, AGENT_PERMISSIONS],
    ] as const) {
      const exists = await tx.selectFrom('roles').select('id').where('name', '=', name).executeTakeFirst();
      if (!exists)
        await tx
          .insertInto('roles')
          .values({ name, permissions: JSON.stringify(permissions), builtin: 1, created_at: now })
          .execute();
    }
    const anyAgent = await tx.selectFrom('agents').select('id').limit(1).executeTakeFirst();
    if (anyAgent) return {};
    const adminRole = await tx.selectFrom('roles').select('id').where('name', '=', ADMIN_ROLE).executeTakeFirstOrThrow();
    const password = adminPassword ?? randomBytes(12).toString('base64url');
    await tx
      .insertInto('agents')
      .values({
        uuid: randomUUID(),
        username: adminUsername,
        nickname: adminUsername,
        avatar: '',
        password_hash: await hashPassword(password),
        role_id: adminRole.id,
        state: '0',
        max_chats: 10,
        disabled: 0,
        pending: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return adminPassword ? { createdAdmin: adminUsername } : { createdAdmin: adminUsername, generatedPassword: password };
  });
}
