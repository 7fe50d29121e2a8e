import { createHash, createHmac } from 'node:crypto';
import { WEBHOOK_HEADERS } from '@parley/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { WebhookConfig } from '../../config.js';
import { GroupCommit } from '../../db/group-commit.js';
import type { Db, DbOrTx } from '../../db/index.js';
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

/** A queued event's delivery to one webhook, its row not yet written (`row.id` is 0 until it is). */
interface Fresh {
  row: DeliveryRow;
  webhook: WebhookRow;
  /** Attempted at once; else written as pending, to go when the due deliveries are looked for. */
  send: boolean;
}

/**
 * The id of an event's delivery to one webhook (`Parley-Delivery`): made from both, so that an event sent
 * again after a process died before writing what came back carries the same id as the first time.
 */
export function deliveryUuid(eventId: string, webhookId: number): string {
  const hex = createHash('sha256').update(`${eventId}/${webhookId}`).digest('hex');
  const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
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
/**
 * Attempts under way in one process at most, and towards one webhook (beyond the outbound guard's 16
 * connections per target they wait for a free one): a receiver that hangs holds its own share until the
 * time allowed runs out, never the others'.
 */
const IN_FLIGHT = 256;
const IN_FLIGHT_PER_WEBHOOK = 64;
/** Attempts a look starts in one turn of the event loop at most. */
const LAUNCH_SLICE = 32;
/** How long a look waits for its attempts before the next look goes on beside those still under way. */
const LOOK_WAIT_MS = 1000;
/**
 * Due deliveries a look takes at most; the rest wait for the next look. On PostgreSQL a look is a dozen
 * round trips, so with 50 a look the deliveries fell behind a busy site's messages (about 700 a second).
 */
const BATCH = 200;
/** Queued events a look sends at most. */
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
 * queued, and when an attempt ends), while it has room for more attempts: it first sends the queued events
 * (`webhook_events`) and writes each of their deliveries once, with what came back (see `sendQueued`);
 * then it looks for due deliveries (tried again, waiting behind an earlier one of their conversation,
 * pings), claims each with a conditional update so that one process makes each attempt, and records what
 * came back. Each attempt posts through the outbound guard within the time allowed: delivered on any 2xx,
 * else tried again later (see `retryWait`) until MAX_ATTEMPTS. A look's attempts run side by side; it
 * waits for them, but at most LOOK_WAIT_MS, so a receiver that hangs delays only its own deliveries (and
 * holds at most its share of the attempts under way), whose outcomes are recorded as they end.
 */
export class WebhookWorker {
  private pruner: NodeJS.Timeout | undefined;
  private readonly poller = new Poller(
    () => this.drain(),
    (error) => this.log.error({ err: error }, 'webhook delivery failed'),
  );
  private readonly commits = new GroupCommit(() => this.db);
  /** The attempts under way, and how many of them go to each webhook. */
  private readonly running = new Set<Promise<void>>();
  private readonly runningTo = new Map<number, number>();
  /** Outcomes not yet recorded: those that end while a commit is written share the next one. */
  private ended: Outcome[] = [];
  private recording: Promise<void> | undefined;
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

  /** Stops looking, and waits for the attempts under way and their records. */
  async stop(): Promise<void> {
    clearInterval(this.pruner);
    await this.poller.stop();
    await Promise.all([...this.running]);
    await this.recording;
  }

  /** Looks for due deliveries now (again right after the current look, when one is running). */
  kick(): void {
    this.poller.kick();
  }

  /** Until when an attempt started now holds its claim: longer than the longest attempt and its record. */
  private claimUntil(nowMs: number): string {
    return new Date(nowMs + this.config.timeoutMs * 3 + 30_000).toISOString();
  }

  private async drain(): Promise<void> {
    while (!this.poller.stopped && IN_FLIGHT - this.running.size > 0) {
      const sent = (await this.sendQueued()) + (await this.sendDue());
      if (sent === 0) return;
    }
  }

  /**
   * Sends the oldest queued events before any row is written for them: claims them (one conversation's
   * next event waits until its earlier one is out of the queue), attempts each towards each of its
   * webhooks, and writes each delivery once with what came back, taking the events out of the queue in
   * the same transaction. A delivery that cannot go at once (an earlier one of its conversation pending
   * for that webhook, the webhook disabled or at its share of attempts) is written as pending and goes
   * with the due ones. A process that dies before writing leaves the events claimed; when the claim runs
   * out they are sent again under the same delivery ids. Answers how many events were taken.
   */
  private async sendQueued(): Promise<number> {
    if (!(await this.repo.anyQueued())) return 0;
    const nowMs = this.now();
    const now = new Date(nowMs).toISOString();
    const until = this.claimUntil(nowMs);
    const look = await this.db.transaction().execute(async (tx) => {
      const events = await this.repo.claimEvents(tx, EVENTS_BATCH, now, until);
      if (events.length === 0) return undefined;
      const wanted = events.map(webhooksOf);
      // A webhook deleted since the event was queued gets no delivery of it.
      const webhooks = new Map((await this.repo.byIds([...new Set(wanted.flat())], tx)).map((row) => [row.id, row]));
      const ids = [...webhooks.keys()];
      const waiting = await this.repo.pendingOrders(tx, ids, [...new Set(events.flatMap((event) => event.order_key ?? []))]);
      const made = await this.repo.madeSources(tx, ids, [...new Set(events.flatMap((event) => event.source ?? []))]);
      return { events, wanted, webhooks, waiting, made };
    });
    if (!look) return 0;
    const counts = new Map(this.runningTo);
    let running = this.running.size;
    const fresh: Fresh[] = [];
    look.events.forEach((event, i) => {
      for (const webhookId of look.wanted[i] ?? []) {
        const webhook = look.webhooks.get(webhookId);
        if (!webhook || (event.source && look.made.has(`${webhookId}:${event.source}`))) continue;
        const count = counts.get(webhookId) ?? 0;
        const send =
          webhook.enabled === 1 &&
          !(event.order_key && look.waiting.has(`${webhookId}:${event.order_key}`)) &&
          count < IN_FLIGHT_PER_WEBHOOK &&
          running < IN_FLIGHT;
        if (send) {
          counts.set(webhookId, count + 1);
          running += 1;
        }
        fresh.push({ row: unwritten(event, webhookId), webhook, send });
      }
    });
    // What came back before the rows are written is written with them; what comes back later is recorded
    // as the due deliveries' outcomes are, once the rows (claimed meanwhile) have their ids.
    const outcomes = new Map<DeliveryRow, Outcome>();
    let phase: 'sending' | 'writing' | 'written' = 'sending';
    const late: Outcome[] = [];
    const launched = await this.launchAll(
      fresh.filter((delivery) => delivery.send),
      (row) => (outcome) => {
        if (phase === 'sending') outcomes.set(row, outcome);
        else if (phase === 'writing') late.push(outcome);
        else this.ended.push(outcome);
      },
    );
    await this.waitFor(launched);
    phase = 'writing';
    try {
      const disabled = await this.commits.run(async (tx) => {
        const at = new Date(this.now()).toISOString();
        const ids = await this.repo.insertDeliveries(
          tx,
          fresh.map(({ row, send }) => {
            const { id: _unwritten, ...written } = row;
            const outcome = outcomes.get(row);
            if (outcome) return { ...written, ...this.afterAttempt(row, outcome, at) };
            return send ? { ...written, claimed_until: until } : written;
          }),
        );
        for (const { row } of fresh) row.id = ids.get(row.uuid) ?? 0;
        await this.repo.dropEvents(
          tx,
          look.events.map((event) => event.id),
        );
        return this.countOutcomes(tx, [...outcomes.values()], at);
      });
      this.afterDisabled(disabled);
    } catch (error) {
      // Nothing was written: the events stay claimed and go again, under the same ids, when the claim runs out.
      for (const { row } of fresh) row.id = 0;
      throw error;
    } finally {
      phase = 'written';
      // Those whose row was not written (another process made that delivery first) have nothing to record.
      this.ended.push(...late.filter((outcome) => outcome.row.id !== 0));
      if (this.ended.length > 0) this.recording ??= this.recordEnded();
    }
    return look.events.length;
  }

  /** Sends the due deliveries (tried again, waiting behind an earlier one, pings); answers how many went. */
  private async sendDue(): Promise<number> {
    const room = IN_FLIGHT - this.running.size;
    if (this.poller.stopped || room <= 0) return 0;
    const nowMs = this.now();
    const now = new Date(nowMs).toISOString();
    const full = [...this.runningTo].filter(([, count]) => count >= IN_FLIGHT_PER_WEBHOOK).map(([id]) => id);
    const due = this.withinRoom(await this.repo.due(now, Math.min(BATCH, room), full));
    if (due.length === 0) return 0;
    // Each webhook read once for the look, not once per delivery.
    const webhooks = new Map((await this.repo.byIds([...new Set(due.map((row) => row.webhook_id))])).map((row) => [row.id, row]));
    // Two of one conversation are never under way together: the later is not due while the earlier is pending.
    const claimed = await this.repo.claim(
      due.map((row) => row.id),
      now,
      this.claimUntil(nowMs),
    );
    const launched = await this.launchAll(
      claimed.flatMap((row) => {
        const webhook = webhooks.get(row.webhook_id);
        return webhook ? [{ row, webhook }] : [];
      }),
      () => (outcome) => this.ended.push(outcome),
    );
    await this.waitFor(launched);
    await this.recording;
    return launched.length;
  }

  /**
   * Waits for a look's attempts, so that looks and commits are made for many deliveries at once (and a
   * conversation's next event can go by then), but not for long: an attempt still under way after
   * LOOK_WAIT_MS goes on beside the next looks, in its webhook's share.
   */
  private async waitFor(launched: Promise<void>[]): Promise<void> {
    if (launched.length === 0) return;
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(launched),
      new Promise((resolve) => {
        waited = setTimeout(resolve, Math.min(LOOK_WAIT_MS, this.config.timeoutMs));
      }),
    ]);
    clearTimeout(waited);
  }

  /** The due deliveries there is room for, towards each webhook. */
  private withinRoom<Row extends { webhook_id: number }>(due: Row[]): Row[] {
    const counts = new Map(this.runningTo);
    return due.filter((row) => {
      const count = counts.get(row.webhook_id) ?? 0;
      if (count >= IN_FLIGHT_PER_WEBHOOK) return false;
      counts.set(row.webhook_id, count + 1);
      return true;
    });
  }

  /**
   * Starts the attempts of a look, LAUNCH_SLICE in a turn of the event loop: the messages that arrive
   * meanwhile are served in between, not after hundreds of requests have been built.
   */
  private async launchAll(
    deliveries: { row: DeliveryRow; webhook: WebhookRow }[],
    settleOf: (row: DeliveryRow) => (outcome: Outcome) => void,
  ): Promise<Promise<void>[]> {
    const launched: Promise<void>[] = [];
    for (const [i, { row, webhook }] of deliveries.entries()) {
      if (i > 0 && i % LAUNCH_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
      launched.push(this.launch(row, webhook, settleOf(row)));
    }
    return launched;
  }

  /** Starts an attempt; `settle` is handed what came back, as it ends. */
  private launch(row: DeliveryRow, webhook: WebhookRow, settle: (outcome: Outcome) => void): Promise<void> {
    this.runningTo.set(webhook.id, (this.runningTo.get(webhook.id) ?? 0) + 1);
    const run: Promise<void> = this.attempt(row, webhook)
      .then(settle)
      .catch((error: unknown) => this.log.error({ err: error, delivery: row.uuid }, 'webhook delivery failed'))
      .finally(() => {
        this.running.delete(run);
        const left = (this.runningTo.get(webhook.id) ?? 1) - 1;
        if (left > 0) this.runningTo.set(webhook.id, left);
        else this.runningTo.delete(webhook.id);
        // An attempt that failed unexpectedly has nothing to record (its claim runs out): room to look again.
        if (this.ended.length > 0) this.recording ??= this.recordEnded();
        else this.kick();
      });
    this.running.add(run);
    return run;
  }

  /**
   * Records the outcomes that have ended, those that end meanwhile in the next commit, then looks again:
   * a conversation's next event, and room for more attempts, wait on these records. A record that fails
   * leaves its deliveries claimed; their claims run out and they are tried again under the same id.
   */
  private async recordEnded(): Promise<void> {
    try {
      while (this.ended.length > 0) {
        const outcomes = this.ended;
        this.ended = [];
        await this.record(outcomes);
      }
    } catch (error) {
      this.log.error({ err: error }, 'webhook outcomes not recorded');
    } finally {
      this.recording = undefined;
      this.kick();
    }
  }

  private secretsOf(webhook: WebhookRow, nowMs: number): string[] {
    const secrets = [this.sealer.open(webhook.secret, SECRET_PURPOSE)];
    if (webhook.previous_secret && webhook.previous_until && Date.parse(webhook.previous_until) > nowMs)
      secrets.push(this.sealer.open(webhook.previous_secret, SECRET_PURPOSE));
    return secrets;
  }

  /** Makes one attempt; answers what came back, recorded with the outcomes that end beside it. */
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

  /** A delivery's columns after an attempt: delivered, tried again later, or given up. */
  private afterAttempt(row: DeliveryRow, { responseCode, error }: Outcome, at: string) {
    const attempts = row.attempts + 1;
    const giveUp = error !== null && attempts >= MAX_ATTEMPTS;
    return {
      attempts,
      response_code: responseCode,
      error,
      last_attempt_at: at,
      claimed_until: null,
      status: error === null ? 'delivered' : giveUp ? 'failed' : 'pending',
      next_at: error === null || giveUp ? null : new Date(Date.parse(at) + retryWait(attempts, this.config.retryBaseMs)).toISOString(),
    };
  }

  /**
   * Counts outcomes towards their webhooks: each webhook that took a delivery cleared of its failures
   * once, each failure counted on its own (each counts towards disabling). Answers the webhooks disabled.
   */
  private async countOutcomes(tx: DbOrTx, outcomes: Outcome[], at: string): Promise<WebhookRow[]> {
    for (const webhookId of new Set(outcomes.filter((outcome) => outcome.error === null).map((outcome) => outcome.webhook.id)))
      await this.repo.succeeded(tx, webhookId);
    const disabled: WebhookRow[] = [];
    for (const { webhook, error } of outcomes) {
      if (error === null) continue;
      const failures = await this.repo.failed(tx, webhook.id);
      if (failures < DISABLE_AFTER || !(await this.repo.disable(tx, webhook.id, at))) continue;
      await this.notices.toAdmins(tx, 'webhookDisabled', { url: webhook.url, failures });
      disabled.push(webhook);
    }
    return disabled;
  }

  private afterDisabled(disabled: WebhookRow[]): void {
    for (const webhook of disabled)
      this.log.warn({ webhook: webhook.id, failures: DISABLE_AFTER }, 'webhook disabled after failures in a row');
    if (disabled.length > 0) this.onDisabled();
  }

  /**
   * Records outcomes of written deliveries in one transaction: those that went out with one statement per
   * answer code, the failures one by one. At a busy site's rate a transaction per delivery would take the
   * database from the messages that make them.
   */
  private async record(outcomes: Outcome[]): Promise<void> {
    const at = new Date(this.now()).toISOString();
    const delivered = new Map<number, number[]>();
    for (const { row, responseCode, error } of outcomes) {
      if (error !== null || responseCode === null) continue;
      const ids = delivered.get(responseCode);
      if (ids) ids.push(row.id);
      else delivered.set(responseCode, [row.id]);
    }
    const disabled = await this.commits.run(async (tx) => {
      for (const [responseCode, ids] of delivered) await this.repo.delivered(tx, ids, responseCode, at);
      for (const outcome of outcomes)
        if (outcome.error !== null) await this.repo.recordAttempt(tx, outcome.row.id, this.afterAttempt(outcome.row, outcome, at));
      return this.countOutcomes(tx, outcomes, at);
    });
    this.afterDisabled(disabled);
  }
}

/** An event's delivery to one webhook as it will be written, before it is (id 0). */
function unwritten(event: QueuedEventRow, webhookId: number): DeliveryRow {
  return {
    id: 0,
    uuid: deliveryUuid(event.event_id, webhookId),
    webhook_id: webhookId,
    event_id: event.event_id,
    event: event.event,
    order_key: event.order_key,
    source: event.source,
    body: event.body,
    status: 'pending',
    attempts: 0,
    response_code: null,
    error: null,
    created_at: event.created_at,
    last_attempt_at: null,
    next_at: event.created_at,
    claimed_until: null,
  };
}
