import type { Db, DbOrTx } from '../../db/index.js';
import { CALLER_COLUMNS } from '../auth/repository.js';

/** API tokens' rows; SQL only. */
export class ApiTokenRepository {
  constructor(private readonly db: Db) {}

  /** The live token of a hash, with what its creator holds now. */
  findLive(tokenHash: string) {
    return this.db
      .selectFrom('api_tokens')
      .innerJoin('agents', 'agents.id', 'api_tokens.agent_id')
      .innerJoin('roles', 'roles.id', 'agents.role_id')
      .select([
        'api_tokens.id',
        'api_tokens.name',
        'api_tokens.permissions as grants',
        'api_tokens.expires_at',
        'api_tokens.last_used_at',
        ...CALLER_COLUMNS,
      ])
      .where('api_tokens.token_hash', '=', tokenHash)
      .where('api_tokens.revoked_at', 'is', null)
      .executeTakeFirst();
  }

  listLive() {
    return this.db
      .selectFrom('api_tokens')
      .innerJoin('agents', 'agents.id', 'api_tokens.agent_id')
      .select([
        'api_tokens.id',
        'api_tokens.name',
        'api_tokens.permissions',
        'api_tokens.created_at',
        'api_tokens.last_used_at',
        'api_tokens.expires_at',
        'agents.username',
      ])
      .where('api_tokens.revoked_at', 'is', null)
      .orderBy('api_tokens.id', 'desc')
      .execute();
  }

  async countLiveOf(tx: DbOrTx, agentId: number): Promise<number> {
    const row = await tx
      .selectFrom('api_tokens')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('agent_id', '=', agentId)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insert(
    tx: DbOrTx,
    row: { agent_id: number; name: string; token_hash: string; permissions: string; created_at: string; expires_at: string | null },
  ): Promise<number> {
    const inserted = await tx.insertInto('api_tokens').values(row).returning('id').executeTakeFirstOrThrow();
    return inserted.id;
  }

  /** Revokes the live ones among `ids`; answers the rows revoked. */
  async revoke(tx: DbOrTx, ids: number[], at: string) {
    const rows = await tx.selectFrom('api_tokens').select(['id', 'name']).where('id', 'in', ids).where('revoked_at', 'is', null).execute();
    if (rows.length > 0)
      await tx
        .updateTable('api_tokens')
        .set({ revoked_at: at })
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
    return rows;
  }

  async touch(id: number, at: string): Promise<void> {
    await this.db.updateTable('api_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
  }
}
