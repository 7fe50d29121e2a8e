import type { PushDevice } from '@parley/protocol';
import type { Db } from '../../db/index.js';
import type { PushSubscriptionsTable } from '../../db/schema.js';

export type SubscriptionRow = Pick<PushSubscriptionsTable, 'endpoint' | 'p256dh' | 'auth' | 'lang'> & { id: number; agent_id: number };

/** SQL of Web Push: the server's key pair, the agents' subscriptions. */
export class PushRepository {
  constructor(private readonly db: Db) {}

  key() {
    return this.db.selectFrom('push_keys').selectAll().where('id', '=', 1).executeTakeFirst();
  }

  /** Stores the first key pair; a pair another process stored first is kept (the caller reads it back). */
  async insertKey(publicKey: string, sealedPrivateKey: string, at: string): Promise<void> {
    await this.db
      .insertInto('push_keys')
      .values({ id: 1, public_key: publicKey, private_key: sealedPrivateKey, created_at: at })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  /**
   * One row per endpoint: a browser subscribed again (new keys), or by another agent signed in on it
   * (the browser's subscription is one), takes the row over.
   */
  async subscribe(
    agentId: number,
    input: { endpoint: string; p256dh: string; auth: string; userAgent: string; lang: string },
    at: string,
  ): Promise<number> {
    const values = { agent_id: agentId, p256dh: input.p256dh, auth: input.auth, user_agent: input.userAgent, lang: input.lang };
    await this.db
      .insertInto('push_subscriptions')
      .values({ ...values, endpoint: input.endpoint, created_at: at })
      .onConflict((oc) =>
        oc.column('endpoint').doUpdateSet({ ...values, created_at: at, last_sent_at: null, last_failed_at: null, last_error: null }),
      )
      .execute();
    const row = await this.db
      .selectFrom('push_subscriptions')
      .select('id')
      .where('endpoint', '=', input.endpoint)
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async unsubscribe(agentId: number, endpoint: string): Promise<void> {
    await this.db.deleteFrom('push_subscriptions').where('agent_id', '=', agentId).where('endpoint', '=', endpoint).execute();
  }

  async remove(agentId: number, id: number): Promise<number> {
    const result = await this.db.deleteFrom('push_subscriptions').where('agent_id', '=', agentId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async devices(agentId: number, id?: number): Promise<PushDevice[]> {
    let query = this.db.selectFrom('push_subscriptions').selectAll().where('agent_id', '=', agentId);
    if (id !== undefined) query = query.where('id', '=', id);
    const rows = await query.orderBy('id', 'desc').execute();
    return rows.map((row) => ({
      id: row.id,
      service: new URL(row.endpoint).host,
      userAgent: row.user_agent,
      createdAt: row.created_at,
      lastSentAt: row.last_sent_at,
      lastFailedAt: row.last_failed_at,
      lastError: row.last_error,
    }));
  }

  /** The uuids of the agents with at least one subscribed device. */
  async subscribedAgents(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('push_subscriptions')
      .innerJoin('agents', 'agents.id', 'push_subscriptions.agent_id')
      .select('agents.uuid')
      .distinct()
      .execute();
    return rows.map((row) => row.uuid);
  }

  subscriptionsOf(agentIds: number[]): Promise<SubscriptionRow[]> {
    if (agentIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('push_subscriptions')
      .select(['id', 'agent_id', 'endpoint', 'p256dh', 'auth', 'lang'])
      .where('agent_id', 'in', agentIds)
      .execute();
  }

  /** The agents (enabled) with these uuids and their own switches; unknown uuids are left out. */
  agents(uuids: string[]) {
    if (uuids.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('agents')
      .select(['id', 'uuid', 'state', 'notify_new_user', 'notify_new_msg', 'notify_transfer', 'notify_letter'])
      .where('uuid', 'in', uuids)
      .where('disabled', '=', 0)
      .execute();
  }

  /** Enabled agents who chose to be online (state '0'): those a waiting visitor may reach. */
  async onlineAgents(): Promise<string[]> {
    const rows = await this.db.selectFrom('agents').select('uuid').where('disabled', '=', 0).where('state', '=', '0').execute();
    return rows.map((row) => row.uuid);
  }

  async sent(id: number, at: string): Promise<void> {
    await this.db
      .updateTable('push_subscriptions')
      .set({ last_sent_at: at, last_failed_at: null, last_error: null })
      .where('id', '=', id)
      .execute();
  }

  async failed(id: number, at: string, error: string): Promise<void> {
    await this.db
      .updateTable('push_subscriptions')
      .set({ last_failed_at: at, last_error: error.slice(0, 256) })
      .where('id', '=', id)
      .execute();
  }

  async drop(id: number): Promise<void> {
    await this.db.deleteFrom('push_subscriptions').where('id', '=', id).execute();
  }
}
