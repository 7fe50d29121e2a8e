/** Typing previews relayed per visitor and second (§6); the rest are dropped. */
export const TYPING_PER_SECOND = 4;

interface Bucket {
  tokens: number;
  at: number;
  sockets: number;
  /** The latest draft dropped by the limit, relayed once a token is free so agents see the final preview. */
  pending: string | undefined;
  timer: NodeJS.Timeout | undefined;
}

/**
 * A token bucket of one token per visitor, shared by all its tabs (sockets) on this process: previews
 * pass at most one per 1/perSecond s, so no second ever holds more than `perSecond` of them. A dropped
 * draft is kept and relayed when the next token is due, so the last text typed always reaches the agent.
 */
export class TypingThrottle {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly relay: (token: string, text: string) => void,
    private readonly perSecond = TYPING_PER_SECOND,
  ) {}

  opened(token: string): void {
    let bucket = this.buckets.get(token);
    if (!bucket) {
      bucket = { tokens: 1, at: Date.now(), sockets: 0, pending: undefined, timer: undefined };
      this.buckets.set(token, bucket);
    }
    bucket.sockets += 1;
  }

  closed(token: string): void {
    const bucket = this.buckets.get(token);
    if (!bucket) return;
    bucket.sockets -= 1;
    if (bucket.sockets <= 0 && !bucket.timer) this.buckets.delete(token);
  }

  offer(token: string, text: string): void {
    const bucket = this.buckets.get(token);
    if (!bucket) return;
    this.refill(bucket);
    if (!bucket.timer && bucket.tokens >= 1) {
      bucket.tokens -= 1;
      this.relay(token, text);
      return;
    }
    bucket.pending = text;
    if (!bucket.timer) {
      const wait = Math.ceil(((1 - bucket.tokens) * 1000) / this.perSecond);
      bucket.timer = setTimeout(() => this.flush(token, bucket), wait);
      bucket.timer.unref();
    }
  }

  stop(): void {
    for (const bucket of this.buckets.values()) clearTimeout(bucket.timer);
    this.buckets.clear();
  }

  private refill(bucket: Bucket): void {
    const now = Date.now();
    bucket.tokens = Math.min(1, bucket.tokens + ((now - bucket.at) * this.perSecond) / 1000);
    bucket.at = now;
  }

  private flush(token: string, bucket: Bucket): void {
    bucket.timer = undefined;
    this.refill(bucket);
    const text = bucket.pending;
    bucket.pending = undefined;
    if (text !== undefined) {
      bucket.tokens = Math.max(0, bucket.tokens - 1);
      this.relay(token, text);
    }
    if (bucket.sockets <= 0) this.buckets.delete(token);
  }
}
