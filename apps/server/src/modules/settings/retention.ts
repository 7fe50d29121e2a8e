import type { FastifyBaseLogger } from 'fastify';
import type { RetentionRepository } from './retention-repository.js';

const DAY_MS = 86_400_000;

/**
 * Keeps conversations, messages, visits and letters for `retentionDays` of the software settings page
 * (0 keeps them for ever): purged once a day, and at once when the page is saved, so a shorter period
 * shows without waiting a day. Every process may run it: deleting what is already gone is harmless.
 */
export class RetentionPurge {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly repo: RetentionRepository,
    private readonly retentionDays: () => number,
    private readonly log: FastifyBaseLogger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.run();
    this.timer = setInterval(() => this.run(), DAY_MS);
    this.timer.unref();
  }

  /** Purges now, unless a purge is under way; failures are logged and tried again next time. */
  run(): Promise<void> {
    this.running ??= this.purge().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async purge(): Promise<void> {
    const days = this.retentionDays();
    if (days <= 0) return;
    try {
      const purged = await this.repo.purgeBefore(new Date(this.now() - days * DAY_MS).toISOString());
      this.log.info({ days, ...purged }, 'retention purge done');
    } catch (error) {
      this.log.warn({ err: error }, 'retention purge failed');
    }
  }
}
