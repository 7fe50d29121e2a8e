import type { ChildProcess } from 'node:child_process';
import type { WebhookConfig } from '../../config.js';
import { startProcess, type ThreadPriority } from '../../lib/threads.js';
import type { HealthReport, WebhookHealth } from './health.js';
import { type DeliveryKick, ThrottledKick } from './kick.js';
import type { WorkerLog } from './log.js';
import type { WebhookRepository } from './repository.js';

/** What the delivery process needs to open the storage and send as the server would. */
export interface DeliverySettings {
  dataDir: string;
  databaseUrl: string | undefined;
  databaseSchema: string | undefined;
  sqliteSynchronous: 'normal' | 'full';
  secretKey: string | undefined;
  outboundAllow: string[];
  webhooks: WebhookConfig;
  /** The delivery process's priority, all its threads', so that the chat's come first on a busy CPU. */
  priority: ThreadPriority;
}

export type ToDeliveryProcess = { type: 'start'; settings: DeliverySettings } | { type: 'kick' } | { type: 'stop' };
export type FromDeliveryProcess =
  | { type: 'health'; reports: HealthReport[] }
  | { type: 'log'; level: 'error' | 'warn' | 'info'; detail: Record<string, unknown>; message: string }
  | { type: 'stopped' };

/** A queued event wakes the process at most this often; its own look every WEBHOOK_POLL_MS covers the rest. */
const KICK_EVERY_MS = 10;
/** The wait before a delivery process that ended unexpectedly is started again. */
const RESTART_MS = 1000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Sends the server's webhook deliveries from a child process (`webhook-delivery`, the WebhookWorker
 * there), all of it at a low priority: making deliveries of the queued events, claiming, signing, posting
 * and recording them is work of the same order as the messages that cause them, and in the chat's process
 * it slowed every message, even on a thread of its own at SCHED_IDLE, whose isolate shares V8's helper
 * threads with the chat's (bench/README.md). The process opens the storage itself (on SQLite the database
 * read-only and the delivery log apart, see log-store.ts) and reports back only what the database here
 * must record: the webhooks' failures in a row (WebhookHealth) and its log lines. It is started at the
 * first event queued, or at the start when webhooks exist, and again after it ended unexpectedly; it ends
 * with the server, however the server ends.
 */
export class DeliveryProcess implements DeliveryKick {
  private child: ChildProcess | undefined;
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

  /** Starts the process now, when webhooks exist (there may be deliveries due). */
  async startIfNeeded(): Promise<void> {
    if ((await this.repo.count(this.repo.main)) > 0) this.start();
  }

  kick(): void {
    if (this.stopping) return;
    this.start();
    this.wake.kick();
  }

  private post(message: ToDeliveryProcess): void {
    const child = this.child;
    if (child?.connected)
      child.send(message, (error: Error | null) => error && this.log.warn({ err: error }, 'the webhook delivery process not told'));
  }

  private start(): void {
    if (this.child || this.stopping) return;
    clearTimeout(this.restart);
    this.restart = undefined;
    let child: ChildProcess;
    try {
      child = startProcess('webhook-delivery');
    } catch (error) {
      this.log.error({ err: error }, 'the webhook delivery process could not start');
      this.restartLater();
      return;
    }
    this.child = child;
    this.post({ type: 'start', settings: this.settings });
    child.on('message', (message: FromDeliveryProcess) => this.heard(message));
    const ended = (detail: Record<string, unknown>) => {
      if (this.child !== child) return;
      this.child = undefined;
      if (this.stopping) return;
      this.log.warn(detail, 'the webhook delivery process ended; it starts again');
      this.restartLater();
    };
    child.on('error', (error) => {
      this.log.error({ err: error }, 'the webhook delivery process failed');
      // One that never started (no pid: the system refused the fork) never exits either.
      if (child.pid === undefined) ended({ started: false });
    });
    child.on('exit', (code, signal) => ended({ code, signal }));
    this.pruner ??= setInterval(() => this.pruneEvents(), this.pruneEveryMs);
    this.pruner.unref();
  }

  private restartLater(): void {
    if (this.stopping || this.restart) return;
    this.restart = setTimeout(() => this.start(), RESTART_MS);
    this.restart.unref();
  }

  private heard(message: FromDeliveryProcess): void {
    if (message.type === 'health')
      this.health.report(message.reports).catch((error: unknown) => this.log.error({ err: error }, 'webhook failures not recorded'));
    else if (message.type === 'log') this.log[message.level](message.detail, message.message);
  }

  /** Deletes the queued events the process has made into deliveries (a log apart only), a few at a time. */
  private pruneEvents(): void {
    this.pruning ??= this.repo
      .pruneTakenEvents(nextTurn)
      .catch((error: unknown) => this.log.warn({ err: error }, 'webhook events not pruned'))
      .finally(() => {
        this.pruning = undefined;
      });
  }

  /** Stops the process once its attempts under way are recorded (at most `timeoutMs`, then it is killed). */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.stopping = true;
    this.wake.stop();
    clearTimeout(this.restart);
    clearInterval(this.pruner);
    await this.pruning;
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    this.post({ type: 'stop' });
    let waited: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>((resolve) => {
        waited = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(waited);
    if (!inTime) {
      this.log.warn({ timeoutMs }, 'the webhook delivery process did not stop in time; killed');
      child.kill('SIGKILL');
      await exited;
    }
    this.child = undefined;
  }
}
