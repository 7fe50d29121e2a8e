import type { Worker } from 'node:worker_threads';
import type { WebhookConfig } from '../../config.js';
import { startThread, type ThreadPriority } from '../../lib/threads.js';
import type { HealthReport, WebhookHealth } from './health.js';
import { type DeliveryKick, ThrottledKick } from './kick.js';
import type { WorkerLog } from './log.js';
import type { WebhookRepository } from './repository.js';

/** What the delivery thread needs to open the storage and send as this process would. */
export interface DeliverySettings {
  dataDir: string;
  databaseUrl: string | undefined;
  databaseSchema: string | undefined;
  sqliteSynchronous: 'normal' | 'full';
  secretKey: string | undefined;
  outboundAllow: string[];
  webhooks: WebhookConfig;
  /** The thread's priority (Linux: a thread's own), so that the chat's thread comes first on a busy CPU. */
  priority: ThreadPriority;
}

export type ToDeliveryThread = { type: 'kick' } | { type: 'stop' };
export type FromDeliveryThread =
  | { type: 'health'; reports: HealthReport[] }
  | { type: 'log'; level: 'error' | 'warn' | 'info'; detail: Record<string, unknown>; message: string }
  | { type: 'stopped' };

/** A queued event wakes the thread at most this often; its own look every WEBHOOK_POLL_MS covers the rest. */
const KICK_EVERY_MS = 10;
/** The wait before a thread that ended unexpectedly is started again. */
const RESTART_MS = 1000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Sends this process's webhook deliveries on a thread of its own (`webhook-thread`, the WebhookWorker
 * there), at a low priority: making deliveries of the queued events, claiming, signing, posting and
 * recording them is work of the same order as the messages that cause them, and on the chat's thread it
 * slowed every message (bench/README.md). The thread opens the storage itself (on SQLite the database
 * read-only and the delivery log apart, see log-store.ts) and reports back only what the database here
 * must record: the webhooks' failures in a row (WebhookHealth) and its log lines. It is started at the
 * first event queued, or at the start when webhooks exist, and again after it ended unexpectedly.
 */
export class DeliveryThread implements DeliveryKick {
  private thread: Worker | undefined;
  private stopping = false;
  private restart: NodeJS.Timeout | undefined;
  private pruner: NodeJS.Timeout | undefined;
  private pruning: Promise<unknown> | undefined;
  private readonly wake = new ThrottledKick(() => this.post({ type: 'kick' }), KICK_EVERY_MS);

  constructor(
    private readonly settings: DeliverySettings,
    private readonly repo: WebhookRepository,
    private readonly health: WebhookHealth,
    private readonly log: WorkerLog,
    /** How often the events a log apart has made into deliveries are deleted from the database. */
    private readonly pruneEveryMs = 60_000,
  ) {}

  /** Starts the thread now, when webhooks exist (there may be deliveries due). */
  async startIfNeeded(): Promise<void> {
    if ((await this.repo.count(this.repo.main)) > 0) this.start();
  }

  kick(): void {
    if (this.stopping) return;
    this.start();
    this.wake.kick();
  }

  private post(message: ToDeliveryThread): void {
    this.thread?.postMessage(message);
  }

  private start(): void {
    if (this.thread || this.stopping) return;
    clearTimeout(this.restart);
    this.restart = undefined;
    let thread: Worker;
    try {
      thread = startThread('webhook-thread', { workerData: this.settings });
    } catch (error) {
      this.log.error({ err: error }, 'the webhook delivery thread could not start');
      this.restartLater();
      return;
    }
    this.thread = thread;
    thread.on('message', (message: FromDeliveryThread) => this.heard(message));
    thread.on('error', (error) => this.log.error({ err: error }, 'the webhook delivery thread failed'));
    thread.on('exit', () => {
      if (this.thread !== thread) return;
      this.thread = undefined;
      if (!this.stopping) this.restartLater();
    });
    this.pruner ??= setInterval(() => this.pruneEvents(), this.pruneEveryMs);
    this.pruner.unref();
  }

  private restartLater(): void {
    if (this.stopping || this.restart) return;
    this.restart = setTimeout(() => this.start(), RESTART_MS);
    this.restart.unref();
  }

  private heard(message: FromDeliveryThread): void {
    if (message.type === 'health')
      this.health.report(message.reports).catch((error: unknown) => this.log.error({ err: error }, 'webhook failures not recorded'));
    else if (message.type === 'log') this.log[message.level](message.detail, message.message);
  }

  /** Deletes the queued events the thread has made into deliveries (a log apart only), a few at a time. */
  private pruneEvents(): void {
    this.pruning ??= this.repo
      .pruneTakenEvents(nextTurn)
      .catch((error: unknown) => this.log.warn({ err: error }, 'webhook events not pruned'))
      .finally(() => {
        this.pruning = undefined;
      });
  }

  /** Stops the thread once its attempts under way are recorded (at most `timeoutMs`). */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.stopping = true;
    this.wake.stop();
    clearTimeout(this.restart);
    clearInterval(this.pruner);
    await this.pruning;
    const thread = this.thread;
    this.thread = undefined;
    if (!thread) return;
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        thread.on('message', (message: FromDeliveryThread) => {
          if (message.type === 'stopped') resolve();
        });
        thread.once('exit', () => resolve());
        thread.postMessage({ type: 'stop' } satisfies ToDeliveryThread);
      }),
      new Promise<void>((resolve) => {
        waited = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(waited);
    await thread.terminate();
  }
}
