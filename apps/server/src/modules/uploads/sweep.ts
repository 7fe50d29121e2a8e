import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { SWEEP_BATCH, type UploadRepository } from './repository.js';

/** Stored upload files are named like this; anything else in the directory but temporaries is left alone. */
export const FILE_NAME = /^[A-Za-z0-9_-]{24}\.[a-z0-9]{1,8}$/;
export const TEMPORARY_PREFIX = '.incoming-';

/**
 * Removes, once they are older than the grace period: uploads no message references (row and file),
 * files with no row, and temporaries left by interrupted uploads. Runs at start and then periodically.
 */
export class UploadSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly repo: UploadRepository,
    private readonly dir: string,
    private readonly options: { intervalMs: number; graceMs: number },
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    const tick = () => {
      this.running ??= this.run()
        .catch((error: unknown) => this.log.warn({ err: error }, 'upload sweep failed'))
        .finally(() => {
          this.running = undefined;
        });
    };
    tick();
    this.timer = setInterval(tick, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  async run(): Promise<void> {
    const cutoff = Date.now() - this.options.graceMs;
    const removed = { unreferenced: 0, orphans: 0, temporaries: 0, bytes: 0 };

    for (;;) {
      const rows = await this.repo.deleteUnreferenced(new Date(cutoff).toISOString());
      for (const row of rows) await rm(join(this.dir, row.name), { force: true });
      removed.unreferenced += rows.length;
      removed.bytes += rows.reduce((sum, row) => sum + Number(row.size), 0);
      if (rows.length < SWEEP_BATCH) break;
    }

    const stale = new Map<string, number>();
    for (const entry of await readdir(this.dir)) {
      const temporary = entry.startsWith(TEMPORARY_PREFIX);
      if (!temporary && !FILE_NAME.test(entry)) continue;
      const info = await stat(join(this.dir, entry)).catch(() => undefined);
      if (!info?.isFile() || info.mtimeMs >= cutoff) continue;
      if (temporary) {
        await rm(join(this.dir, entry), { force: true });
        removed.temporaries += 1;
        removed.bytes += info.size;
      } else stale.set(entry, info.size);
    }
    const known = await this.repo.known([...stale.keys()]);
    for (const [name, size] of stale) {
      if (known.has(name)) continue;
      await rm(join(this.dir, name), { force: true });
      removed.orphans += 1;
      removed.bytes += size;
    }

    if (removed.unreferenced + removed.orphans + removed.temporaries > 0) this.log.info(removed, 'upload sweep removed files');
  }
}
