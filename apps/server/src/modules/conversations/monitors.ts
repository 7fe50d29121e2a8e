/**
 * How long a visitor's monitors are trusted without word of a change: a word lost with the bus (Redis
 * away for longer than it keeps events) costs at most this long a stale list, and a visitor whose
 * conversation ended unheard (erased) leaves the cache after it.
 */
const TRUST_MS = 60_000;

interface Entry {
  monitors: Promise<string[]>;
  at: number;
}

/**
 * The supervisors monitoring each visitor, read once per conversation instead of once per message. It
 * is asked only while a visitor's conversation is someone's, and told to forget a visitor whenever its
 * monitors change (a supervisor starts monitoring; the conversation ends, which clears them), in every
 * process through the bus ('monitors.changed').
 */
export class MonitorCache {
  private readonly entries = new Map<number, Entry>();
  private swept = 0;

  constructor(
    private readonly read: (visitorId: number) => Promise<string[]>,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  of(visitorId: number): Promise<string[]> {
    const now = this.now();
    const found = this.entries.get(visitorId);
    if (found && now - found.at < TRUST_MS) return found.monitors;
    if (now - this.swept >= TRUST_MS) this.sweep(now);
    // The read itself is kept, so that messages arriving together share it. A change told while it runs
    // forgets this entry: the read may predate the change, so it is not kept past its own callers.
    const entry: Entry = { monitors: this.read(visitorId), at: now };
    this.entries.set(visitorId, entry);
    entry.monitors.catch(() => this.drop(visitorId, entry));
    return entry.monitors;
  }

  forget(visitorId: number): void {
    this.entries.delete(visitorId);
  }

  private drop(visitorId: number, entry: Entry): void {
    if (this.entries.get(visitorId) === entry) this.entries.delete(visitorId);
  }

  private sweep(now: number): void {
    this.swept = now;
    for (const [visitorId, entry] of this.entries) if (now - entry.at >= TRUST_MS) this.entries.delete(visitorId);
  }
}
