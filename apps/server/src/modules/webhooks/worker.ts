import { createHmac, randomUUID } from 'node:crypto';
import { WEBHOOK_HEADERS } from '@parley/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { WebhookConfig } from '../../config.js';
import { GroupCommit } from '../../db/group-commit.js';
import type { Db } from '../../db/index.js';
import { type OutboundClient, OutboundError } from '../../lib/outbound.js';
import { Poller } from '../../lib/poller.js';
import { SealError, type Sealer } from '../../lib/sealed.js';
import type { Notices } from '../notices/service.js';
import type { DeliveryRow, QueuedEventRow, WebhookRepository, WebhookRow } from './repository.js';

/** What one attempt came to: the answer's status when there was one, the reason it failed when it did. */
interface Outcome {
  row: DeliveryRow;
  webhook: WebhookRow;
  responseCode: number | null;
  error: string | null;
}

/** The webhooks a queued event was for (a JSON list of ids). */
function webhooksOf(event: QueuedEventRow): number[] {
  const ids: unknown = JSON.parse(event.webhook_ids);
  return Array.isArray(ids) ? ids.filter((id): id is number => Number.isInteger(id)) : [];
}

/** Attempts of one delivery before it is given up as `failed`: with the waits below, over a day and a half. */
export const MAX_ATTEMPTS = 10;
/** Failed attempts in a row (whatever the delivery) after which a webhook is disabled and Admins told. */
export const DISABLE_AFTER = 20;
/** The longest wait between two attempts, in units of the base wait (12 h at the default 10 s). */
const MAX_WAIT_UNITS = 4320;
/** How long the log keeps a delivery that went out or was given up, and how often it is cut. */
const KEPT_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 3600_000;
/** Queued events a look turns into deliveries at most. */
const EVENTS_BATCH = 200;
/** The purpose webhook secrets are sealed for. */
export const SECRET_PURPOSE = 'webhook.secret';

/**
 * The wait after the `attempt`-th failed attempt: the base × 4^(attempt-1), at most 12 h at the default
 * base, with ±20 % jitter so that receivers coming back are not hit by every sender at once. At the
 * default base, attempt 8 comes after about 15 h and attempt 10 after about 39 h: ≥ 8 attempts over ≥ 24 h.
 */
export function retryWait(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const units = Math.min(MAX_WAIT_UNITS, 4 ** (attempt - 1));
  return Math.round(baseMs * units * (0.8 + 0.4 * random()));
}

/** `t=<unix s>,v1=<hex>` and, during a rotation, a second `v1=` under the secret being replaced. */
export function signature(secrets: string[], unixSeconds: number, body: string): string {
  const signed = `${unixSeconds}.${body}`;
  return [`t=${unixSeconds}`, ...secrets.map((secret) => `v1=${createHmac('sha256', secret).update(signed).digest('hex')}`)].join(',');
}

/**
 * Sends the deliveries of the outbox. Each process looks every `pollMs` (and at once when an event is
 * queued): it first turns the queued events (`webhook_events`) into one delivery per webhook
 * (`webhook_deliveries`), then looks for due deliveries, claims each with a conditional update so that one
 * process makes each attempt, posts it through the outbound guard within the time allowed, and records
 * what came back: delivered on any 2xx, else tried again later (see `retryWait`) until MAX_ATTEMPTS.
 */
export class WebhookWorker {
  private pruner: NodeJS.Timeout | undefined;
  private readonly poller = new Poller(
    () => this.drain(),
    (error) => this.log.error({ err: error }, 'webhook delivery failed'),
  );
  private readonly commits = new GroupCommit(() => this.db);
  /** Told when a webhook is disabled after its failures (the enabled webhooks changed). */
  onDisabled: () => void = () => {};

  constructor(
    private readonly db: Db,
    private readonly repo: WebhookRepository,
    private readonly outbound: OutboundClient,
    private readonly sealer: Sealer,
    private readonly notices: Notices,
    private readonly config: WebhookConfig,
    private readonly log: FastifyBaseLogger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.pruner = setInterval(() => this.prune(), PRUNE_EVERY_MS);
    this.pruner.unref();
    this.prune();
    this.poller.start(this.config.pollMs);
  }

  private prune(): void {
    this.repo
      .prune(new Date(this.now() - KEPT_MS).toISOString())
      .catch((error: unknown) => this.log.warn({ err: error }, 'webhook log pruning failed'));
  }

  async stop(): Promise<void> {
    clearInterval(this.pruner);
    await this.poller.stop();
  }

  /** Looks for due deliveries now (again right after the current look, when one is running). */
  kick(): void {
    this.poller.kick();
  }

  /**
   * Turns the oldest queued events into deliveries, in one transaction: the event leaves the queue as its
   * deliveries are written, so none is lost or made twice. Answers how many events were taken.
   */
  private async expand(): Promise<number> {
    if (!(await this.repo.anyQueued())) return 0;
    return this.db.transaction().execute(async (tx) => {
      const events = await this.repo.takeEvents(tx, EVENTS_BATCH);
      const wanted = events.map(webhooksOf);
      const existing = await this.repo.existing(tx, [...new Set(wanted.flat())]);
      const rows = events.flatMap((event, i) =>
        (wanted[i] ?? [])
          .filter((id) => existing.has(id))
          .map((webhookId) => ({
            uuid: randomUUID(),
            webhook_id: webhookId,
            event_id: event.event_id,
            event: event.event,
            order_key: event.order_key,
            source: event.source,
            body: event.body,
            status: 'pending',
            created_at: event.created_at,
            next_at: event.created_at,
            last_attempt_at: null,
            response_code: null,
            error: null,
            claimed_until: null,
          })),
      );
      await this.repo.insertDeliveries(tx, rows);
      return events.length;
    });
  }

  private async drain(): Promise<void> {
    for (;;) {
      const taken = await this.expand();
      const nowMs = this.now();
      const now = new Date(nowMs).toISOString();
      const due = await this.repo.due(now);
      if (this.poller.stopped) return;
      // Nothing due yet, but more queued: those may be (the ones taken were for disabled webhooks, or wait their turn).
      if (due.length === 0) {
        if (taken > 0) continue;
        return;
      }
      // Each webhook read once for the batch, not once per delivery.
      const webhooks = new Map((await this.repo.byIds([...new Set(due.map((row) => row.webhook_id))])).map((row) => [row.id, row]));
      // A claim outlives the longest attempt, so it never runs out while its attempt is under way.
      const until = new Date(nowMs + this.config.timeoutMs * 3 + 30_000).toISOString();
      // The batch goes out side by side, and the next look waits for all of it: a receiver that hangs holds
      // the next batch up to the time allowed (WEBHOOK_TIMEOUT_MS). Two of one conversation are never in
      // one batch, as the later waits while the earlier is pending.
      const claimed = await this.repo.claim(
        due.map((row) => row.id),
        now,
        until,
      );
      if (claimed.length === 0) return;
      const outcomes = await Promise.all(
        claimed.flatMap((row) => {
          const webhook = webhooks.get(row.webhook_id);
          return webhook ? [this.attempt(row, webhook)] : [];
        }),
      );
      await this.record(outcomes);
    }
  }

  private secretsOf(webhook: WebhookRow, nowMs: number): string[] {
    const secrets = [this.sealer.open(webhook.secret, SECRET_PURPOSE)];
    if (webhook.previous_secret && webhook.previous_until && Date.parse(webhook.previous_until) > nowMs)
      secrets.push(this.sealer.open(webhook.previous_secret, SECRET_PURPOSE));
    return secrets;
  }

  /** Makes one attempt; answers what came back, recorded with the rest of the batch. */
  private async attempt(row: DeliveryRow, webhook: WebhookRow): Promise<Outcome> {
    const startedMs = this.now();
    let responseCode: number | null = null;
    let error: string | null = null;
    try {
      const response = await this.outbound.request(webhook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Parley-Webhooks/1',
          [WEBHOOK_HEADERS.event]: row.event,
          [WEBHOOK_HEADERS.delivery]: row.uuid,
          [WEBHOOK_HEADERS.signature]: signature(this.secretsOf(webhook, startedMs), Math.floor(startedMs / 1000), row.body),
        },
        body: row.body,
        timeoutMs: this.config.timeoutMs,
        // Only the status counts: a receiver's answer is never read, however large.
        readBody: false,
      });
      responseCode = response.status;
      if (response.status < 200 || response.status > 299) error = 'http';
    } catch (failure) {
      if (failure instanceof OutboundError) error = failure.reason;
      else if (failure instanceof SealError) {
        // The secret was sealed under another key (SECRET_KEY differs between processes, or was changed).
        this.log.error({ webhook: webhook.id }, 'a webhook secret cannot be opened with this key (SECRET_KEY or DATA_DIR/secret.key)');
        error = 'secretUnreadable';
      } else throw failure;
    }
    if (error !== null)
      this.log.info(
        { webhook: webhook.id, delivery: row.uuid, attempts: row.attempts + 1, responseCode, reason: error },
        'webhook delivery failed',
      );
    return { row, webhook, responseCode, error };
  }

  /**
   * Records a batch's outcomes in one transaction: the deliveries that went out with one statement per
   * answer code, each webhook that took one cleared of its failures once, the failures one by one (each
   * counts towards disabling its webhook). At a busy site's rate a transaction per delivery would take
   * the database from the messages that make them.
   */
  private async record(outcomes: Outcome[]): Promise<void> {
    const nowMs = this.now();
    const at = new Date(nowMs).toISOString();
    const delivered = new Map<number, number[]>();
    for (const { row, responseCode, error } of outcomes)
      if (error === null && responseCode !== null) delivered.set(responseCode, [...(delivered.get(responseCode) ?? []), row.id]);
    const disabled = await this.commits.run(async (tx) => {
      for (const [responseCode, ids] of delivered) await this.repo.delivered(tx, ids, responseCode, at);
      for (const webhookId of new Set(outcomes.filter((outcome) => outcome.error === null).map((outcome) => outcome.webhook.id)))
        await this.repo.succeeded(tx, webhookId);
      const disabled: WebhookRow[] = [];
      for (const { row, webhook, responseCode, error } of outcomes) {
        if (error === null) continue;
        const attempts = row.attempts + 1;
        const giveUp = attempts >= MAX_ATTEMPTS;
        await this.repo.recordAttempt(tx, row.id, {
          attempts,
          response_code: responseCode,
          error,
          last_attempt_at: at,
          claimed_until: null,
          status: giveUp ? 'failed' : 'pending',
          next_at: giveUp ? null : new Date(nowMs + retryWait(attempts, this.config.retryBaseMs)).toISOString(),
        });
        const failures = await this.repo.failed(tx, webhook.id);
        if (failures < DISABLE_AFTER || !(await this.repo.disable(tx, webhook.id, at))) continue;
        await this.notices.toAdmins(tx, 'webhookDisabled', { url: webhook.url, failures });
        disabled.push(webhook);
      }
      return disabled;
    });
    for (const webhook of disabled)
      this.log.warn({ webhook: webhook.id, failures: DISABLE_AFTER }, 'webhook disabled after failures in a row');
    if (disabled.length > 0) this.onDisabled();
  }
}
