import { ApiError } from './errors.js';
import type { MessageKey } from './i18n.js';

/**
 * Heavy work (an export of a year of conversations, a knowledge-base import, the robot's index) shares
 * the one event loop with every request. It runs in slices, and `nextSlice()` hands out one slice per
 * turn of the event loop for the whole process, so between any two slices, of one job or of several,
 * the loop turns and answers whatever came in: a request waits for at most one slice, however many jobs
 * run. SQLite runs a query synchronously on this thread, so a slice is a page of rows, sized to take a
 * few milliseconds.
 */
let last: Promise<void> = Promise.resolve();

/**
 * Resolves on a later turn of the event loop than the previous caller's: await it before each slice.
 * An immediate queued while the loop runs the immediates of this turn waits for the next turn, after
 * the loop has polled for I/O, so the slices of all callers alternate with the answering of requests.
 */
export function nextSlice(): Promise<void> {
  const turn = last.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  last = turn;
  return turn;
}

/** Releases a slot taken from `JobSlots`; a second call does nothing. */
export type Release = () => void;

/**
 * How many jobs of one kind run at once: at most `perAgent` for one agent and `perProcess` in all.
 * Counted in this process: each process bounds its own event loop.
 */
export class JobSlots {
  private running = 0;
  private readonly byAgent = new Map<string, number>();

  /** `busy`: the 429's message, given the limits as `{perAgent}` and `{perProcess}`. */
  constructor(
    readonly limits: { perAgent: number; perProcess: number },
    private readonly busy: MessageKey,
  ) {}

  /** A slot for the agent's job; 429 when the agent or the process is at its limit. */
  take(agent: string): Release {
    const mine = this.byAgent.get(agent) ?? 0;
    if (mine >= this.limits.perAgent || this.running >= this.limits.perProcess) throw new ApiError(429, this.busy, this.limits);
    this.byAgent.set(agent, mine + 1);
    this.running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      const left = (this.byAgent.get(agent) ?? 1) - 1;
      if (left > 0) this.byAgent.set(agent, left);
      else this.byAgent.delete(agent);
    };
  }
}
