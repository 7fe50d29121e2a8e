import { MAX_ROBOT_QUESTION_LENGTH } from '@parley/protocol';
import { Poller } from '../../lib/poller.js';
import { normalize } from './matcher.js';
import type { AskedQuestion, RobotRepository } from './repository.js';

/** Pending questions are written this often, or as soon as this many different ones wait. */
const FLUSH_MS = 2000;
const FLUSH_AT = 200;
/** The log keeps the questions asked within this many days, and at most this many rows. */
const KEEP_DAYS = 180;
const KEEP_ROWS = 20_000;
/** Pruned after this many rows were written (the prune is two statements; a write of many rows is one). */
const PRUNE_EVERY = 1000;
const DAY_MS = 86_400_000;

/**
 * What visitors asked the robot in real chats, and which pair answered it (none: the unanswered list).
 * Questions are gathered in memory and written in batches by a timer, never on the way to an answer:
 * the robot's reply does not wait for this log, and a burst of the same question is one row's update.
 */
export class QuestionLog {
  private readonly pending = new Map<string, AskedQuestion>();
  private readonly poller: Poller;
  private written = 0;

  constructor(
    private readonly repo: RobotRepository,
    onError: (error: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.poller = new Poller(() => this.flush(), onError);
    this.poller.start(FLUSH_MS);
  }

  /** Notes one question the robot was asked, answered by `pairId` or by none. */
  note(text: string, pairId: number | null): void {
    const wording = text.trim().slice(0, MAX_ROBOT_QUESTION_LENGTH);
    const key = questionKey(text);
    if (key === '') return;
    const id = pairId ?? 0;
    const lastAt = new Date(this.now()).toISOString();
    const slot = `${id}\n${key}`;
    const seen = this.pending.get(slot);
    if (seen) {
      seen.times += 1;
      seen.text = wording;
      seen.lastAt = lastAt;
    } else this.pending.set(slot, { key, text: wording, pairId: id, times: 1, lastAt });
    if (this.pending.size >= FLUSH_AT) this.poller.kick();
  }

  /** Writes what waits now: the lists read after it see every question this process was asked. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending.clear();
    for (let start = 0; start < batch.length; start += FLUSH_AT) await this.repo.recordQuestions(batch.slice(start, start + FLUSH_AT));
    this.written += batch.length;
    if (this.written < PRUNE_EVERY) return;
    this.written = 0;
    await this.repo.pruneQuestions(new Date(this.now() - KEEP_DAYS * DAY_MS).toISOString(), KEEP_ROWS);
  }

  /** Stops the timer and writes what is left (the server is closing). */
  async stop(): Promise<void> {
    await this.poller.stop();
    await this.flush();
  }
}

/** The key a wording is logged under, for dropping it from the unanswered list once a pair holds it. */
export function questionKey(text: string): string {
  return normalize(text.trim().slice(0, MAX_ROBOT_QUESTION_LENGTH)).slice(0, 400);
}
