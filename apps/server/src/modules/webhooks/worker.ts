import { createHmac } from 'node:crypto';
import { WEBHOOK_HEADERS } from '@parley/protocol';
import type { WebhookConfig } from '../../config.js';
import { GroupCommit } from '../../db/group-commit.js';
import { OutboundError } from '../../lib/outbound.js';
import type { OutboundRequester } from '../../lib/outbound-thread.js';
import { Poller } from '../../lib/poller.js';
import { SealError, type Sealer } from '../../lib/sealed.js';
import type { HealthReport, HealthReporter } from './health.js';
import { ThrottledKick } from './kick.js';
import type { WorkerLog } from './log.js';
import { messageBodies } from './message-events.js';
import { type DeliveryRow, deliveryId, newDelivery, type Receivers, type WebhookRepository, type WebhookRow } from './repository.js';

/** What one attempt came to: the answer's status when there was one, the reason it failed when it did. */
interface Outcome {
  row: DeliveryRow;
  webhook: WebhookRow;
  responseCode: number | null;
  error: string | null;
}

/** Attempts of one delivery before it is given up as `failed`: with the waits below, over a day and a half. */
export const MAX_ATTEMPTS = 10;
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
/** How long a look waits for its attempts before the next look goes on beside those still under way. */
const LOOK_WAIT_MS = 1000;
/**
 * Due deliveries a look takes at most; the rest wait for the next look. On PostgreSQL a look is a dozen
 * round trips, so with 50 a look the deliveries fell behind a busy site's messages (about 700 a second).
 */
const BATCH = 200;
/**
 * How long an attempt that ended waits for others to share its record's commit, when it ended outside a
 * look's own wait (a look records its attempts together as they end). A commit per outcome or two was the
 * delivery process's largest cost: a commit writes the pages it touched, whatever the rows.
 */
const RECORD_GATHER_MS = 20;
/** Queued events a look turns into deliveries at most. */
const EVENTS_BATCH = 200;
/**
 * The least time between two looks that are not full. Woken at every end of an attempt and every message,
 * the worker looked some 450 times a second at a busy site's 1,000 messages, each look making, claiming,
 * sending and recording the deliveries of one message: its statements and commits per look cost more than
 * the sending, on the CPUs the chat shares. Gathered, a look takes a few dozen; a conversation's next event
 * (due once the one before it is recorded) waits at most this much more.
 */
const LOOK_GAP_MS = 25;
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
 * queued, and when an attempt ends): it first turns the queued events (`webhook_events`) into one delivery
 * per webhook (`webhook_deliveries`), then looks for due deliveries while it has room for more attempts,
 * claims each with a conditional update so that one process makes each attempt (the sole sender of
 * SQLite's log keeps those under way in memory instead, see takeDue), posts it through the
 * outbound guard within the time allowed, and records what came back: delivered on any 2xx, else tried
 * again later (see `retryWait`) until MAX_ATTEMPTS. A look's attempts run side by side and are recorded
 * as they end; the next look waits for them, but at most LOOK_WAIT_MS, so a receiver that hangs delays
 * only its own deliveries (and holds at most its share of the attempts under way).
 */
export class WebhookWorker {
  private pruner: NodeJS.Timeout | undefined;
  private readonly poller = new Poller(
    () => this.drain(),
    (error) => this.log.error({ err: error }, 'webhook delivery failed'),
  );
  private readonly commits = new GroupCommit(() => this.repo.log.db);
  private readonly wake = new ThrottledKick(() => this.poller.kick(), LOOK_GAP_MS);
  /** The attempts under way, and how many of them go to each webhook. */
  private readonly running = new Set<Promise<void>>();
  private readonly runningTo = new Map<number, number>();
  /** The deliveries under way, until their outcomes are recorded (what a sole sender has instead of claims). */
  private readonly underWay = new Set<number>();
  /** Outcomes not yet recorded: those that end while a commit is written share the next one. */
  private ended: Outcome[] = [];
  private recording: Promise<void> | undefined;
  private gathering: NodeJS.Timeout | undefined;
  /** Secrets opened, by the webhook row a look read (see secretsOf). */
  private readonly opened = new WeakMap<WebhookRow, string[]>();
  /** The webhooks this worker told of failures and not yet of a success since (see health). */
  private readonly failing = new Set<number>();

  constructor(
    private readonly repo: WebhookRepository,
    private readonly outbound: OutboundRequester,
    private readonly sealer: Sealer,
    private readonly health: HealthReporter,
    private readonly config: WebhookConfig,
    private readonly log: WorkerLog,
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
      .receivers()
      .then(({ existing }) => this.repo.prune(new Date(this.now() - KEPT_MS).toISOString(), existing))
      .catch((error: unknown) => this.log.warn({ err: error }, 'webhook log pruning failed'));
  }

  /** Stops looking, and waits for the attempts under way and their records. */
  async stop(): Promise<void> {
    clearInterval(this.pruner);
    this.wake.stop();
    await this.poller.stop();
    await Promise.all([...this.running]);
    while (this.recording || this.ended.length > 0) await this.recordNow();
  }

  /** Looks for due deliveries soon: now, or LOOK_GAP_MS after the last look began (then after the current one ends). */
  kick(): void {
    this.wake.kick();
  }

  /**
   * Turns the oldest queued events into deliveries, in one transaction: the event leaves the queue as its
   * deliveries are written, so none is lost or made twice. Answers how many events were taken, and the
   * webhooks it read to make them (the look's receivers), when it took any.
   */
  private async expand(): Promise<{ taken: number; receivers?: Receivers }> {
    if (!(await this.repo.anyQueued())) return { taken: 0 };
    return this.repo.log.db.transaction().execute(async (tx) => {
      const { events, receivers } = await this.repo.takeQueue(tx, EVENTS_BATCH);
      // Messages told by reference get their bodies now, read from the database (apart from the log's).
      const built = await messageBodies(
        this.repo.log.apart ? this.repo.main : tx,
        events.filter((event) => event.body === ''),
      );
      let next = 0;
      const bodies = events.map((event) => (event.body === '' ? built[next++] : event.body));
      // A webhook deleted since the event was queued gets no delivery of it.
      const existing = new Set(receivers.existing);
      // A message purged since it was queued has nothing left to tell.
      const rows = events.flatMap((event, i) =>
        (bodies[i] === undefined ? [] : event.webhookIds)
          .filter((id) => existing.has(id))
          .map((webhookId) =>
            newDelivery({
              uuid: deliveryId(),
              webhookId,
              eventId: event.event_id,
              event: event.event,
              orderKey: event.order_key,
              source: event.source,
              body: bodies[i] ?? event.body,
              at: event.created_at,
            }),
          ),
      );
      await this.repo.insertDeliveries(rows, tx);
      return { taken: events.length, receivers };
    });
  }

  private async drain(): Promise<void> {
    for (;;) {
      const { taken, receivers: read } = await this.expand();
      const receivers = read ?? (await this.repo.receivers());
      const room = IN_FLIGHT - this.running.size;
      // No room: the end of an attempt looks again.
      if (this.poller.stopped || room <= 0) return;
      const nowMs = this.now();
      const full = [...this.runningTo].filter(([, count]) => count >= IN_FLIGHT_PER_WEBHOOK).map(([id]) => id);
      const asked = Math.min(BATCH, room);
      const { found, rows: attempting } = await this.takeDue(nowMs, asked, full, receivers);
      // Nothing due yet, but more queued: those may be (the ones taken were for disabled webhooks, or wait their turn).
      if (attempting.length === 0) {
        if (taken > 0) continue;
        return;
      }
      // Each webhook read once for the look, not once per delivery.
      const webhooks = new Map(receivers.rows.map((row) => [row.id, row]));
      const launched = attempting.flatMap((row) => {
        const webhook = webhooks.get(row.webhook_id);
        return webhook ? [this.launch(row, webhook)] : [];
      });
      // The next look waits for this one's attempts and their records, so that looks and commits are made
      // for many deliveries at once (and a conversation's next event is due by then), but not for long: an
      // attempt still under way after LOOK_WAIT_MS goes on beside the next looks, in its webhook's share.
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(launched),
        new Promise((resolve) => {
          waited = setTimeout(resolve, Math.min(LOOK_WAIT_MS, this.config.timeoutMs));
        }),
      ]);
      clearTimeout(waited);
      await this.recordNow();
      // A look that found fewer than it asked for has caught up: the next comes when woken, LOOK_GAP_MS after
      // this one at the soonest. (One held back by a webhook's share of attempts has not: that is a backlog.)
      if (found < asked && taken < EVENTS_BATCH) return;
    }
  }

  /**
   * The due deliveries this look attempts, at most `asked` and within each webhook's room, and how many
   * were due. Where several processes send (PostgreSQL), each is claimed with a conditional update, so that
   * one process makes each attempt. The sole sender of a log apart claims none: it leaves out those it has
   * under way, which it keeps until their outcomes are recorded (a write less of every delivery, and a
   * commit less of every look).
   */
  private async takeDue(
    nowMs: number,
    asked: number,
    full: number[],
    receivers: Receivers,
  ): Promise<{ found: number; rows: DeliveryRow[] }> {
    const now = new Date(nowMs).toISOString();
    if (this.repo.soleSender) {
      // Those under way are still pending in the log: asked for beside the others, and left out here.
      const due = await this.repo.dueWhole(now, asked + this.underWay.size, full, receivers);
      const found = due.filter((row) => !this.underWay.has(row.id)).slice(0, asked);
      return { found: found.length, rows: this.withinRoom(found) };
    }
    const found = await this.repo.due(now, asked, full, receivers);
    // A claim outlives the longest attempt, so it never runs out while its attempt is under way. Two of one
    // conversation are never under way together: the later is not due while the earlier is pending.
    const until = new Date(nowMs + this.config.timeoutMs * 3 + 30_000).toISOString();
    const claimed = await this.repo.claim(
      this.withinRoom(found).map((row) => row.id),
      now,
      until,
    );
    return { found: found.length, rows: claimed };
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

  private launch(row: DeliveryRow, webhook: WebhookRow): Promise<void> {
    this.runningTo.set(webhook.id, (this.runningTo.get(webhook.id) ?? 0) + 1);
    this.underWay.add(row.id);
    const run: Promise<void> = this.attempt(row, webhook)
      .then((outcome) => {
        this.ended.push(outcome);
      })
      .catch((error: unknown) => {
        // Nothing to record: it is due again (a claim runs out first).
        this.underWay.delete(row.id);
        this.log.error({ err: error, delivery: row.uuid }, 'webhook delivery failed');
      })
      .finally(() => {
        this.running.delete(run);
        const left = (this.runningTo.get(webhook.id) ?? 1) - 1;
        if (left > 0) this.runningTo.set(webhook.id, left);
        else this.runningTo.delete(webhook.id);
        // An attempt that failed unexpectedly has nothing to record (its claim runs out): room to look again.
        if (this.ended.length > 0) this.recordSoon();
        else this.kick();
      });
    this.running.add(run);
    return run;
  }

  /** Records the outcomes that have ended after RECORD_GATHER_MS, with those that end meanwhile. */
  private recordSoon(): void {
    if (this.recording || this.gathering) return;
    this.gathering = setTimeout(() => void this.recordNow(), RECORD_GATHER_MS);
  }

  /** Records the outcomes that have ended now; answers when they are (and those being recorded already). */
  private recordNow(): Promise<void> | undefined {
    clearTimeout(this.gathering);
    this.gathering = undefined;
    if (this.ended.length > 0) this.recording ??= this.recordEnded();
    return this.recording;
  }

  /**
   * Records the outcomes that have ended (those that end meanwhile gather for the next commit), then looks again:
   * a conversation's next event, and room for more attempts, wait on these records. A record that fails
   * leaves its deliveries claimed; their claims run out (a sole sender's are due again at once) and they are
   * tried again under the same id.
   */
  private async recordEnded(): Promise<void> {
    const outcomes = this.ended;
    this.ended = [];
    try {
      await this.record(outcomes);
    } catch (error) {
      this.log.error({ err: error }, 'webhook outcomes not recorded');
    } finally {
      // Recorded, or (the record failed) due again: a sole sender sends them again under the same ids.
      for (const { row } of outcomes) this.underWay.delete(row.id);
      this.recording = undefined;
      // Those that ended meanwhile gather others for a commit of their own.
      if (this.ended.length > 0) this.recordSoon();
      this.kick();
    }
  }

  /**
   * A webhook's secrets, opened once per row read: a look reads each webhook once, so its deliveries share
   * one opening instead of one each (the next look reads the row, and any rotation, anew).
   */
  private secretsOf(webhook: WebhookRow, nowMs: number): string[] {
    const opened = this.opened.get(webhook);
    if (opened) return opened;
    const secrets = [this.sealer.open(webhook.secret, SECRET_PURPOSE)];
    if (webhook.previous_secret && webhook.previous_until && Date.parse(webhook.previous_until) > nowMs)
      secrets.push(this.sealer.open(webhook.previous_secret, SECRET_PURPOSE));
    this.opened.set(webhook, secrets);
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

  /**
   * Records outcomes in one transaction of the log: the deliveries that went out with one statement per
   * answer code, the failures one by one. At a busy site's rate a transaction per delivery would take the
   * database from the messages that make them. Then tells `health` of the webhooks whose failures in a row
   * changed: those that failed, and those that had failed and took one now (nothing when all is well).
   */
  private async record(outcomes: Outcome[]): Promise<void> {
    const nowMs = this.now();
    const at = new Date(nowMs).toISOString();
    const delivered = new Map<number, number[]>();
    for (const { row, responseCode, error } of outcomes) {
      if (error !== null || responseCode === null) continue;
      const ids = delivered.get(responseCode);
      if (ids) ids.push(row.id);
      else delivered.set(responseCode, [row.id]);
    }
    await this.commits.run(async (tx) => {
      for (const [responseCode, ids] of delivered) await this.repo.delivered(tx, ids, responseCode, at);
      for (const { row, responseCode, error } of outcomes) {
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
      }
    });
    const reports = new Map<number, HealthReport>();
    for (const { webhook, error } of outcomes) {
      const report = reports.get(webhook.id) ?? { webhookId: webhook.id, url: webhook.url, cleared: false, failed: 0 };
      if (error === null) report.cleared ||= webhook.failures > 0 || this.failing.has(webhook.id);
      else report.failed += 1;
      reports.set(webhook.id, report);
    }
    const changed = [...reports.values()].filter((report) => report.cleared || report.failed > 0);
    for (const report of changed) {
      if (report.failed > 0) this.failing.add(report.webhookId);
      else this.failing.delete(report.webhookId);
    }
    if (changed.length > 0) await this.health.report(changed);
  }
}
