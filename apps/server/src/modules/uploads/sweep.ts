import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { SWEEP_BATCH, type UploadRepository } from './repository.js';

/** Stored upload files are named like this; anything else in the directory but temporaries is left alone. */
export const FILE_NAME = /^[A-Za-z0-9_-]{24}\.[a-z0-9]{1,8}$/;
export const TEMPORARY_PREFIX = '.incoming-';

/** An upload's URL inside a message: `/api/files/<name>/<label>`, relative or absolute. */
const UPLOAD_URL = new RegExp(`/api/files/(${FILE_NAME.source.slice(1, -1)})(?:[/?#]|$)`);

/** Up to this many message ids are read per statement while marking references. */
export const MESSAGE_WINDOW = 1000;

/**
 * Messages younger than this are read again by the next sweep: ids are taken in insertion order but
 * (on PostgreSQL) become visible in commit order, so a message may appear below an id already read.
 */
const SETTLE_MS = 10 * 60 * 1000;

/** The upload a message's text names, if any. */
export function uploadNameIn(msg: string): string | undefined {
  return UPLOAD_URL.exec(msg)?.[1];
}

/**
 * Lets the event loop run between batches: better-sqlite3 runs each statement synchronously, so
 * awaiting an already settled promise would keep the loop busy through the whole sweep.
 */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Removes, once they are older than the grace period: uploads no message references and no setting,
 * avatar or robot pair shows (row and file; see `shownOutsideMessages`), files with no row, and
 * temporaries left by interrupted uploads. Runs at start and then periodically.
 *
 * References are found incrementally: each sweep reads only the messages after its watermark, in id
 * windows, and marks the uploads they name; the delete then only needs `referenced = 0`. The watermark is
 * shared in the database (`upload_marks`), recorded after each window's marks: a process that starts
 * goes on from where any process got to, instead of reading every message again (at ten million messages
 * that was ten thousand statements at every start). Processes sweeping at once may read a window twice;
 * marking twice is harmless.
 */
export class UploadSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  /** Every message with an id up to this one has been read and its upload marked. */
  private watermark = 0;

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

  /** Stops the timer and waits for a running sweep, which gives up at its next batch. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** Marks the uploads named by image and file messages after the watermark, and moves it on. */
  async markReferences(): Promise<void> {
    const settled = new Date(Date.now() - SETTLE_MS).toISOString();
    this.watermark = Math.max(this.watermark, await this.repo.marksUpTo());
    const last = await this.repo.lastMessageId();
    let watermark = this.watermark;
    let held = false;
    for (let from = this.watermark; from < last; from += MESSAGE_WINDOW) {
      if (this.stopping) return;
      const upTo = Math.min(from + MESSAGE_WINDOW, last);
      const names = new Set<string>();
      for (const row of await this.repo.messagesBetween(from, upTo, settled)) {
        // The watermark stops at the last settled message before the first unsettled one (an id in
        // between may belong to a message not committed yet); the unsettled ones are still marked.
        if (row.created_at >= settled) held = true;
        else if (!held) watermark = row.id;
        const name = row.type === 'image' || row.type === 'file' ? uploadNameIn(row.msg) : undefined;
        if (name) names.add(name);
      }
      await this.repo.markReferenced([...names]);
      if (!held) watermark = upTo;
      // Only once this window's uploads are marked: a process that reads the point relies on them.
      if (watermark > this.watermark) await this.repo.recordMarksUpTo(watermark);
      this.watermark = watermark;
      await yieldToEventLoop();
    }
  }

  async run(): Promise<void> {
    const cutoff = Date.now() - this.options.graceMs;
    const removed = { unreferenced: 0, orphans: 0, temporaries: 0, bytes: 0 };

    await this.markReferences();
    for (;;) {
      if (this.stopping) return;
      const rows = await this.repo.deleteUnreferenced(new Date(cutoff).toISOString(), this.watermark);
      for (const row of rows) await rm(join(this.dir, row.name), { force: true });
      removed.unreferenced += rows.length;
      removed.bytes += rows.reduce((sum, row) => sum + Number(row.size), 0);
      if (rows.length < SWEEP_BATCH) break;
      await yieldToEventLoop();
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
