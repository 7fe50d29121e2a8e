import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import type { BusEvent } from './events.js';

export type BusHandler = (event: BusEvent) => void;

/** One way to fan events out: in-process, or through Redis when several processes share a deployment. */
export interface Bus {
  publish(event: BusEvent): Promise<void>;
  subscribe(handler: BusHandler): () => void;
  /** Resolves while the bus can carry events (readiness); rejects when its backing service is away. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class LocalBus implements Bus {
  private readonly handlers = new Set<BusHandler>();

  async publish(event: BusEvent): Promise<void> {
    this.deliver(event);
  }

  /** Runs every handler now, in this turn of the event loop. */
  deliver(event: BusEvent): void {
    for (const handler of this.handlers) handler(event);
  }

  subscribe(handler: BusHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.handlers.clear();
  }
}

/**
 * Reconnects for ever, at most a second apart, so every process is back soon after Redis is; commands
 * wait for the connection instead of failing after a few retries.
 */
export const REDIS_RECONNECT: RedisOptions = {
  lazyConnect: true,
  maxRetriesPerRequest: null,
  retryStrategy: (times: number) => Math.min(times * 100, 1000),
};

export interface RedisBusOptions {
  /** Events kept while Redis is away; the oldest are dropped beyond this (clients catch up by seq). */
  maxQueued?: number;
  /** Events older than this when Redis returns are dropped instead of sent. */
  maxQueuedAgeMs?: number;
  /**
   * After a reconnection, how long the queue waits for the other processes to subscribe again before it
   * is sent anyway (a process that is gone for good never will).
   */
  settleMs?: number;
}

interface Queued {
  payload: string;
  at: number;
}

/**
 * Hands each event to this process's own handlers at once and publishes it on one Redis channel for the
 * others; each process skips what it published itself, so a handler runs exactly once per process.
 * Publishing never waits on Redis and never fails: while Redis is away, events wait in a bounded queue
 * that is sent, in order, once Redis and the other processes' subscriptions are back.
 */
export class RedisBus implements Bus {
  private readonly local = new LocalBus();
  private readonly channel: string;
  private readonly origin = randomBytes(8).toString('hex');
  private readonly queue: Queued[] = [];
  /** Subscribers that heard the last event sent (this process's included): whom to wait for after an outage. */
  private receivers = 0;
  private flushing = false;
  private closed = false;
  private readonly maxQueued: number;
  private readonly maxQueuedAgeMs: number;
  private readonly settleMs: number;
  /** Told about events dropped and connections lost or back. */
  onWarning: (message: string) => void = () => undefined;

  private constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    prefix: string,
    options: RedisBusOptions,
  ) {
    this.channel = `${prefix}:events`;
    this.maxQueued = options.maxQueued ?? 10_000;
    this.maxQueuedAgeMs = options.maxQueuedAgeMs ?? 5 * 60_000;
    this.settleMs = options.settleMs ?? 5000;
  }

  static async connect(url: string, prefix: string, options: RedisBusOptions = {}): Promise<RedisBus> {
    // The publisher fails at once while disconnected: the bus keeps its own queue, with limits.
    const publisher = new Redis(url, { ...REDIS_RECONNECT, enableOfflineQueue: false });
    const subscriber = new Redis(url, { ...REDIS_RECONNECT, autoResubscribe: true });
    await Promise.all([publisher.connect(), subscriber.connect()]);
    const bus = new RedisBus(publisher, subscriber, prefix, options);
    await subscriber.subscribe(bus.channel);
    bus.receivers = await bus.subscribers();
    subscriber.on('message', (channel: string, payload: string) => {
      if (channel !== bus.channel) return;
      const { origin, event } = JSON.parse(payload) as { origin?: string; event?: BusEvent };
      // Events of this process were delivered when published; a payload of another shape is not ours.
      if (event && origin !== bus.origin) bus.local.deliver(event);
    });
    let lost = false;
    const onLost = () => {
      if (lost || bus.closed) return;
      lost = true;
      bus.onWarning('redis connection lost; events are queued until it returns');
    };
    // ioredis reconnects by itself; without these listeners it would also print every failed attempt.
    publisher.on('error', onLost);
    subscriber.on('error', onLost);
    publisher.on('close', onLost);
    publisher.on('ready', () => {
      lost = false;
      void bus.flush();
    });
    return bus;
  }

  async publish(event: BusEvent): Promise<void> {
    this.local.deliver(event);
    if (this.closed) return;
    const payload = JSON.stringify({ origin: this.origin, event });
    if (this.queue.length === 0 && !this.flushing && this.publisher.status === 'ready') {
      this.publisher.publish(this.channel, payload).then(
        (receivers) => {
          this.receivers = receivers;
        },
        () => this.enqueue(payload),
      );
      return;
    }
    this.enqueue(payload);
  }

  private enqueue(payload: string): void {
    this.queue.push({ payload, at: Date.now() });
    if (this.queue.length > this.maxQueued) {
      const dropped = this.queue.splice(0, this.queue.length - this.maxQueued).length;
      this.onWarning(`redis unavailable: dropped the ${dropped} oldest queued events`);
    }
    if (this.publisher.status === 'ready') void this.flush();
  }

  private async subscribers(): Promise<number> {
    const answer = (await this.publisher.pubsub('NUMSUB', this.channel)) as [string, number | string];
    return Number(answer[1]);
  }

  /** Sends what was queued, once as many processes listen as before (or settleMs passed). */
  private async flush(): Promise<void> {
    if (this.flushing || this.queue.length === 0) return;
    this.flushing = true;
    try {
      const deadline = Date.now() + this.settleMs;
      while (!this.closed && Date.now() < deadline) {
        const listening = await this.subscribers().catch(() => 0);
        if (listening >= this.receivers) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const stale = Date.now() - this.maxQueuedAgeMs;
      const old = this.queue.findIndex((item) => item.at >= stale);
      const tooOld = old === -1 ? this.queue.length : old;
      if (tooOld > 0) {
        this.queue.splice(0, tooOld);
        this.onWarning(`redis unavailable: dropped ${tooOld} events older than ${this.maxQueuedAgeMs} ms`);
      }
      while (!this.closed && this.queue.length > 0 && this.publisher.status === 'ready') {
        const batch = this.queue.slice(0, 500);
        const pipeline = this.publisher.pipeline();
        for (const item of batch) pipeline.publish(this.channel, item.payload);
        const results = (await pipeline.exec()) ?? [];
        let sent = 0;
        for (const [error, receivers] of results) {
          if (error) break;
          sent += 1;
          this.receivers = Number(receivers);
        }
        this.queue.splice(0, sent);
        if (sent < batch.length) break;
      }
    } catch {
      // The connection went away again; its return flushes what is left.
    } finally {
      this.flushing = false;
    }
    if (this.queue.length > 0 && this.publisher.status === 'ready' && !this.closed) {
      setTimeout(() => void this.flush(), 100).unref();
    }
  }

  subscribe(handler: BusHandler): () => void {
    return this.local.subscribe(handler);
  }

  async ping(): Promise<void> {
    await this.publisher.ping();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.local.close();
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }
}
