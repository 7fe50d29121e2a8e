import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { RetentionRepository } from './retention-repository.js';

const DAY_MS = 86_400_000;

/**
 * Keeps conversations, messages (with the files they show), visits and letters for `retentionDays` of the software settings page
 * (0 keeps them for ever): purged once a day, and at once when the page is saved, so a shorter period
 * shows without waiting a day. Every process may run it: deleting what is already gone is harmless.
 */
export class RetentionPurge {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly repo: RetentionRepository,
    private readonly retentionDays: () => number,
    /** Where upload files are kept (DATA_DIR/uploads). */
    private readonly uploadsDir: string,
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
      const { files, ...purged } = await this.repo.purgeBefore(new Date(this.now() - days * DAY_MS).toISOString());
      for (const name of files) {
        // The row is gone: a file that cannot be removed now is removed by the upload sweep later.
        await rm(join(this.uploadsDir, name), { force: true }).catch((error: unknown) =>
          this.log.warn({ err: error }, 'a purged upload file could not be removed now'),
        );
      }
      this.log.info({ days, ...purged, files: files.length }, 'retention purge done');
    } catch (error) {
      this.log.warn({ err: error }, 'retention purge failed');
    }
  }
}
