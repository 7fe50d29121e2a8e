import { randomBytes, randomUUID } from 'node:crypto';
import type { Webhook, WebhookDelivery, WebhookDeliveryState, WebhookEvent, WebhookEventType, WebhookWithSecret } from '@parley/protocol';
import type { Db, DbOrTx } from '../../db/index.js';
import type { AuditActor } from '../../lib/caller.js';
import { ApiError, badRequest } from '../../lib/errors.js';
import { type OutboundClient, OutboundError } from '../../lib/outbound.js';
import type { Sealer } from '../../lib/sealed.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { DeliveryKick } from './kick.js';
import { type DeliveryRow, deliveryId, newDelivery, type WebhookRepository, type WebhookRow } from './repository.js';
import { envelopeBody, eventsOf } from './views.js';
import { SECRET_PURPOSE } from './worker.js';

/** Webhooks a site may have: one per system it connects, not a flood of copies of each event. */
export const MAX_WEBHOOKS = 20;
/** How long the secret replaced by a rotation keeps signing beside the new one. */
export const ROTATION_GRACE_MS = 24 * 3600_000;

function view(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: eventsOf(row.events),
    enabled: row.enabled === 1,
    failures: row.failures,
    previousSecretUntil: row.previous_secret ? row.previous_until : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function deliveryView(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.uuid,
    event: row.event as WebhookEventType,
    status: row.status as WebhookDeliveryState,
    attempts: row.attempts,
    responseCode: row.response_code,
    error: row.error,
    createdAt: row.created_at,
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.status === 'pending' ? row.next_at : null,
  };
}

/** Whether a webhook so set takes `message.created`: on SQLite it is told the messages stored while it does. */
function takesMessages(hook: { enabled: boolean; events: readonly WebhookEvent[] }): boolean {
  return hook.enabled && hook.events.includes('message.created');
}

/** The longest the enabled webhooks are kept read should a change notice be missed (a bus outage). */
const ENABLED_KEPT_MS = 60_000;

/** A signing secret: 32 random bytes, prefixed so a leaked one is easy to recognise. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * Webhooks (CONTRACT §12): managing them, and queueing events for them. An event is written once, with
 * the webhooks that take it, into `webhook_events` in the change's transaction (on SQLite a message is
 * its own record of `message.created`, see WebhookRepository.takeTold); the worker turns it into a row per
 * webhook in `webhook_deliveries` and drains those. The envelope's body is fixed when queued, so
 * every retry sends the same bytes.
 */
export class WebhookService {
  /**
   * The enabled webhooks, read once and kept: every stored message asks which webhooks take it, and the
   * message path must not pay a read for it. Forgotten on every change (here, and through the bus in the
   * other processes), and at the latest after ENABLED_KEPT_MS should a change notice be missed.
   */
  private enabledHooks: { at: number; rows: Promise<Awaited<ReturnType<WebhookRepository['enabled']>>> } | undefined;
  /** Told when webhooks change (app.ts tells the other processes through the bus). */
  onChanged: () => void = () => {};

  constructor(
    private readonly db: Db,
    private readonly repo: WebhookRepository,
    private readonly sealer: Sealer,
    private readonly outbound: OutboundClient,
    private readonly audit: AuditLog,
    private readonly delivery: DeliveryKick,
    private readonly now: () => number = Date.now,
  ) {}

  async list(): Promise<{ list: Webhook[]; total: number }> {
    const list = (await this.repo.list()).map(view);
    return { list, total: list.length };
  }

  /** A URL the outbound rule refuses is refused when saved, not at the first event. */
  private async checkUrl(url: string): Promise<void> {
    try {
      await this.outbound.check(url);
    } catch (error) {
      if (error instanceof OutboundError) throw badRequest('outboundRefused', { field: 'url' });
      throw error;
    }
  }

  /** Creates a webhook (answering its secret this once) or changes one (its secret stays). */
  async edit(body: { id?: number | undefined; url: string; events: WebhookEvent[]; enabled: boolean }, actor: AuditActor) {
    await this.checkUrl(body.url);
    const at = new Date(this.now()).toISOString();
    const detail = { url: body.url, events: body.events, enabled: body.enabled };
    if (body.id === undefined) {
      const secret = newSecret();
      const id = await this.db.transaction().execute(async (tx) => {
        if ((await this.repo.count(tx)) >= MAX_WEBHOOKS) throw new ApiError(409, 'tooManyWebhooks', { max: MAX_WEBHOOKS });
        const inserted = await this.repo.insert(tx, {
          url: body.url,
          events: JSON.stringify(body.events),
          enabled: body.enabled ? 1 : 0,
          secret: this.sealer.seal(secret, SECRET_PURPOSE),
          previous_secret: null,
          previous_until: null,
          created_at: at,
          updated_at: at,
          message_spans: (await this.repo.spansChange(tx, null, takesMessages(body))).message_spans ?? '[]',
        });
        await this.audit.record(tx, { ...actor, action: 'webhook.create', target: `webhook:${inserted}`, detail });
        return inserted;
      });
      this.changed();
      return { ...(await this.view(id)), secret };
    }
    const id = body.id;
    await this.db.transaction().execute(async (tx) => {
      const before = await this.repo.find(tx, id);
      if (!before) throw new ApiError(404, 'webhookNotFound');
      await this.repo.update(tx, id, {
        url: body.url,
        events: JSON.stringify(body.events),
        enabled: body.enabled ? 1 : 0,
        // Enabling again starts the count of failures in a row afresh.
        ...(body.enabled && before.enabled === 0 ? { failures: 0 } : {}),
        // Told the messages stored while it takes them (see message-spans.ts).
        ...(await this.repo.spansChange(tx, before.message_spans, takesMessages(body))),
        updated_at: at,
      });
      await this.audit.record(tx, { ...actor, action: 'webhook.update', target: `webhook:${id}`, detail });
    });
    this.changed();
    if (body.enabled) this.delivery.kick();
    return this.view(id);
  }

  private async view(id: number): Promise<Webhook> {
    const row = await this.repo.find(this.db, id);
    if (!row) throw new ApiError(404, 'webhookNotFound');
    return view(row);
  }

  /** Deletes webhooks; their pending deliveries go with them and are never sent. */
  async remove(ids: number[], actor: AuditActor): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const deleted = await this.repo.delete(tx, [...new Set(ids)]);
      for (const row of deleted)
        await this.audit.record(tx, { ...actor, action: 'webhook.delete', target: `webhook:${row.id}`, detail: { url: row.url } });
    });
    this.changed();
    await this.repo.dropDeliveries([...new Set(ids)]);
  }

  /** A new secret, answered this once; the one it replaces keeps signing beside it for ROTATION_GRACE_MS. */
  async rotateSecret(id: number, actor: AuditActor): Promise<WebhookWithSecret> {
    const secret = newSecret();
    const nowMs = this.now();
    await this.db.transaction().execute(async (tx) => {
      const before = await this.repo.find(tx, id);
      if (!before) throw new ApiError(404, 'webhookNotFound');
      await this.repo.update(tx, id, {
        secret: this.sealer.seal(secret, SECRET_PURPOSE),
        previous_secret: before.secret,
        previous_until: new Date(nowMs + ROTATION_GRACE_MS).toISOString(),
        updated_at: new Date(nowMs).toISOString(),
      });
      await this.audit.record(tx, { ...actor, action: 'webhook.update', target: `webhook:${id}`, detail: { secret: 'rotated' } });
    });
    return { ...(await this.view(id)), secret };
  }

  async deliveries(query: { id: number; pageNo: number; pageSize: number }): Promise<{ list: WebhookDelivery[]; total: number }> {
    await this.view(query.id);
    const { list, total } = await this.repo.deliveriesOf(query.id, (query.pageNo - 1) * query.pageSize, query.pageSize);
    return { list: list.map(deliveryView), total };
  }

  /** Sends a `ping` to the webhook, as a delivery of its own the worker sends; answers it. */
  async test(id: number): Promise<WebhookDelivery> {
    await this.view(id);
    return this.deliveryOf(await this.deliverOnce('ping', { webhookId: id }, id));
  }

  /** Queues an earlier delivery's event again, as a new delivery (a new `Parley-Delivery`), outside the order. */
  async redeliver(deliveryId: string): Promise<WebhookDelivery> {
    const earlier = await this.repo.findDelivery(deliveryId);
    if (!earlier) throw new ApiError(404, 'webhookDeliveryNotFound');
    const uuid = await this.queueDelivery(earlier.webhook_id, earlier.event_id, earlier.event, earlier.body);
    return this.deliveryOf(uuid);
  }

  private async deliveryOf(uuid: string): Promise<WebhookDelivery> {
    const row = await this.repo.findDelivery(uuid);
    if (!row) throw new ApiError(404, 'webhookDeliveryNotFound');
    return deliveryView(row);
  }

  /**
   * The enabled webhooks that take this event: the caller builds its data only when there are some. Kept
   * in memory; read with `db`, the caller's transaction, when it is not (a second connection may not be free).
   */
  async takers(type: WebhookEvent, db?: DbOrTx): Promise<number[]> {
    const hooks = await this.enabled(db);
    return hooks.filter((hook) => eventsOf(hook.events).includes(type)).map((hook) => hook.id);
  }

  /** Forgets the enabled webhooks read: the next event reads them again. */
  forget(): void {
    this.enabledHooks = undefined;
  }

  private changed(): void {
    this.forget();
    this.onChanged();
  }

  private enabled(db?: DbOrTx) {
    const nowMs = this.now();
    if (!this.enabledHooks || nowMs - this.enabledHooks.at > ENABLED_KEPT_MS) {
      const rows = this.repo.enabled(db);
      // A failed read is not kept: the next event tries again.
      rows.catch(() => this.forget());
      this.enabledHooks = { at: nowMs, rows };
    }
    return this.enabledHooks.rows;
  }

  /** The envelope every attempt sends (CONTRACT §12): fixed when queued, so every retry sends the same bytes. */
  private envelope(type: WebhookEventType, data: unknown): { eventId: string; at: string; body: string } {
    const at = new Date(this.now()).toISOString();
    const eventId = randomUUID();
    return { eventId, at, body: envelopeBody(eventId, type, at, data) };
  }

  /** Whether the messages table is the outbox of `message.created` here, so none is queued (see the repository). */
  get messagesTold(): boolean {
    return this.repo.messagesTold;
  }

  /**
   * Queues a `message.created` by reference, in the message's transaction: which message (`source`) and
   * for which webhooks, with no body; the worker builds it from the stored message (see message-events.ts),
   * so the message path pays one small row and no reading or JSON of its own.
   */
  async enqueueMessage(orderKey: string, messageId: number, webhookIds: number[], tx: DbOrTx): Promise<void> {
    if (webhookIds.length === 0) return;
    await this.repo.queueEvent(tx, {
      event_id: randomUUID(),
      event: 'message.created',
      order_key: orderKey,
      source: `message:${messageId}`,
      body: '',
      webhook_ids: JSON.stringify(webhookIds),
      created_at: new Date(this.now()).toISOString(),
    });
  }

  /**
   * Queues one event for the given webhooks in `tx`, the transaction of the change it tells of: one row
   * whatever their number, which the worker turns into one delivery per webhook once it has committed
   * (woken by `kick`). `orderKey` (the visitor's conversation) keeps one conversation's events in order for
   * each webhook; `source` (the stored fact it tells) is delivered once per webhook however often queued.
   */
  async enqueue(
    type: WebhookEventType,
    orderKey: string | null,
    data: unknown,
    webhookIds: number[],
    source: string | null,
    tx: DbOrTx,
  ): Promise<void> {
    if (webhookIds.length === 0) return;
    const { eventId, at, body } = this.envelope(type, data);
    await this.repo.queueEvent(tx, {
      event_id: eventId,
      event: type,
      order_key: orderKey,
      source,
      body,
      webhook_ids: JSON.stringify(webhookIds),
      created_at: at,
    });
  }

  /** Queues a delivery of a new event to one webhook directly, outside any conversation's order; answers its id. */
  private async deliverOnce(type: WebhookEventType, data: unknown, webhookId: number): Promise<string> {
    const { eventId, body } = this.envelope(type, data);
    return this.queueDelivery(webhookId, eventId, type, body);
  }

  private async queueDelivery(webhookId: number, eventId: string, type: string, body: string): Promise<string> {
    const uuid = deliveryId();
    const at = new Date(this.now()).toISOString();
    await this.repo.insertDeliveries([newDelivery({ uuid, webhookId, eventId, event: type, orderKey: null, source: null, body, at })]);
    this.delivery.kick();
    return uuid;
  }

  /** Looks for due deliveries now: after a transaction that queued some has committed. */
  kick(): void {
    this.delivery.kick();
  }
}
