import { Redis } from 'ioredis';
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
 * Publishes to one Redis channel that every process subscribes to, this one included, so a handler
 * runs exactly once per process whichever process published.
 */
export class RedisBus implements Bus {
  private readonly local = new LocalBus();
  private readonly channel: string;

  private constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    prefix: string,
  ) {
    this.channel = `${prefix}:events`;
  }

  static async connect(url: string, prefix: string): Promise<RedisBus> {
    const options = { lazyConnect: true, maxRetriesPerRequest: 3 };
    const publisher = new Redis(url, options);
    const subscriber = new Redis(url, options);
    await Promise.all([publisher.connect(), subscriber.connect()]);
    const bus = new RedisBus(publisher, subscriber, prefix);
    await subscriber.subscribe(bus.channel);
    subscriber.on('message', (channel: string, payload: string) => {
      if (channel !== bus.channel) return;
      bus.local.publish(JSON.parse(payload) as BusEvent);
    });
    return bus;
  }

  async publish(event: BusEvent): Promise<void> {
    await this.publisher.publish(this.channel, JSON.stringify(event));
  }

  subscribe(handler: BusHandler): () => void {
    return this.local.subscribe(handler);
  }

  async ping(): Promise<void> {
    await this.publisher.ping();
  }

  async close(): Promise<void> {
    await this.local.close();
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }
}
