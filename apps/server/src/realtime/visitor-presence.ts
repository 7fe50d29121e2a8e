import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { REDIS_RECONNECT } from './bus.js';

/** A process announces itself this often; one silent for NODE_STALE_MS is taken for dead. */
const HEARTBEAT_MS = 10_000;
const NODE_STALE_MS = 30_000;
/** A holder record outlives any visit; it only guards against keys left behind forever. */
const HOLDERS_TTL_S = 24 * 3600;

/**
 * Which processes hold a visitor's sockets, for deployments of several processes (Redis). A visitor
 * with one tab on each of two processes closes one: that process must not report "visitor left" while
 * the other still holds a socket. Per visitor, a hash maps process → sockets held; processes heartbeat
 * in a sorted set; a process that stops heartbeating is swept by the others, and its visitors that no
 * live process holds are reported as gone.
 */
export class SharedVisitorPresence {
  readonly nodeId = randomBytes(8).toString('hex');
  private readonly timer: NodeJS.Timeout;
  private readonly nodesKey: string;
  private ticking = false;
  /** When Redis last came back: heartbeats of live processes may have been lost until then. */
  private reconnectedAt = 0;
  private readonly reconnectHandlers: (() => void)[] = [];

  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly onOrphaned: (token: string) => void,
    onError: (error: unknown) => void,
  ) {
    this.nodesKey = `${prefix}:visitor-nodes`;
    this.timer = setInterval(() => {
      // Commands wait while Redis is away: one beat at a time, not a pile of them when it returns.
      if (this.ticking) return;
      this.ticking = true;
      this.heartbeat()
        .then(() => this.sweep())
        .catch(onError)
        .finally(() => {
          this.ticking = false;
        });
    }, HEARTBEAT_MS);
    this.timer.unref();
    let connected = true;
    redis.on('close', () => {
      connected = false;
    });
    // Without this listener ioredis prints every failed reconnection attempt.
    redis.on('error', () => undefined);
    redis.on('ready', () => {
      if (connected) return;
      connected = true;
      this.reconnectedAt = Date.now();
      this.heartbeat().catch(onError);
      for (const handler of this.reconnectHandlers) handler();
    });
  }

  /** Runs `handler` each time Redis returns after an outage (it may have lost every record meanwhile). */
  onReconnect(handler: () => void): void {
    this.reconnectHandlers.push(handler);
  }

  static async connect(
    url: string,
    prefix: string,
    onOrphaned: (token: string) => void,
    onError: (error: unknown) => void,
  ): Promise<SharedVisitorPresence> {
    const redis = new Redis(url, REDIS_RECONNECT);
    await redis.connect();
    const presence = new SharedVisitorPresence(redis, prefix, onOrphaned, onError);
    await presence.heartbeat();
    return presence;
  }

  private holdersKey(token: string): string {
    return `${this.prefix}:visitor-holders:${token}`;
  }

  private tokensKey(node: string): string {
    return `${this.prefix}:node-visitors:${node}`;
  }

  /** Records how many sockets of the visitor this process holds now (0: none). */
  async held(token: string, sockets: number): Promise<void> {
    const holders = this.holdersKey(token);
    if (sockets > 0) {
      await this.redis
        .multi()
        .hset(holders, this.nodeId, sockets)
        .expire(holders, HOLDERS_TTL_S)
        .sadd(this.tokensKey(this.nodeId), token)
        .exec();
    } else {
      await this.redis.multi().hdel(holders, this.nodeId).srem(this.tokensKey(this.nodeId), token).exec();
    }
  }

  /** Whether a live process other than this one holds a socket of the visitor. */
  async heldElsewhere(token: string): Promise<boolean> {
    const [holders, alive] = await Promise.all([this.redis.hgetall(this.holdersKey(token)), this.liveNodes()]);
    // Right after an outage a live holder may not have beaten yet: its record is believed as it is.
    return heldBy(holders, this.recovering() ? null : alive, this.nodeId);
  }

  private recovering(): boolean {
    return Date.now() - this.reconnectedAt < NODE_STALE_MS;
  }

  private async liveNodes(): Promise<Set<string>> {
    return new Set(await this.redis.zrangebyscore(this.nodesKey, Date.now() - NODE_STALE_MS, '+inf'));
  }

  private async heartbeat(): Promise<void> {
    await this.redis.zadd(this.nodesKey, Date.now(), this.nodeId);
  }

  /**
   * Takes over what dead processes held: exactly one process claims each (ZREM answers 1 once). Runs
   * with every heartbeat, except in the stale window after Redis returns.
   */
  async sweep(): Promise<void> {
    // Right after an outage every process looks silent: wait until each had the time to beat again.
    if (this.recovering()) return;
    const dead = await this.redis.zrangebyscore(this.nodesKey, '-inf', Date.now() - NODE_STALE_MS);
    if (dead.length === 0) return;
    const alive = await this.liveNodes();
    for (const node of dead) {
      if ((await this.redis.zrem(this.nodesKey, node)) !== 1) continue;
      const tokens = await this.redis.smembers(this.tokensKey(node));
      for (const token of tokens) {
        await this.redis.hdel(this.holdersKey(token), node);
        if (!heldBy(await this.redis.hgetall(this.holdersKey(token)), alive)) this.onOrphaned(token);
      }
      await this.redis.del(this.tokensKey(node));
    }
  }

  /**
   * Stops heartbeating. The records stay: the other processes sweep them once this one is stale, and
   * report its visitors that did not reconnect elsewhere as gone.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.redis.disconnect();
  }
}

/**
 * Whether any live process but `except` holds sockets, by a visitor's holders record (process →
 * sockets); `alive` null takes every holder for alive.
 */
function heldBy(holders: Record<string, string>, alive: Set<string> | null, except?: string): boolean {
  return Object.entries(holders).some(([node, sockets]) => node !== except && Number(sockets) > 0 && (alive === null || alive.has(node)));
}
