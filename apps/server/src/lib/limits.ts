import { hash } from 'node:crypto';
import { once } from 'node:events';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { ApiError } from './errors.js';

/** At most `max` requests per key in each window of `seconds`. */
export interface Window {
  max: number;
  seconds: number;
}

/** A route's limits: per client address always, per visitor token where the request carries one. */
export interface RouteLimit {
  address: Window;
  token?: Window;
}

/**
 * Every limit of the public write (and read) API, in one place. The address limits are sized for a
 * site whose visitors sit behind one corporate NAT address (hundreds of page loads a minute); the
 * token limits for one person in one browser. A token limit alone would let a client rotate tokens,
 * so the address limit is what bounds a flood; windows are short where a burst must stay small.
 * `RATE_LIMITS` overrides single entries (`visitorMessage.address=100/10,register.address=3/3600`).
 */
export const LIMITS = {
  visitorInit: { address: { max: 300, seconds: 60 }, token: { max: 30, seconds: 60 } },
  visitorVisit: { address: { max: 600, seconds: 60 }, token: { max: 60, seconds: 60 } },
  visitorMessage: { address: { max: 100, seconds: 10 }, token: { max: 30, seconds: 10 } },
  visitorMessages: { address: { max: 1200, seconds: 60 }, token: { max: 120, seconds: 60 } },
  visitorLetter: { address: { max: 30, seconds: 3600 } },
  visitorContact: { address: { max: 60, seconds: 60 }, token: { max: 10, seconds: 60 } },
  visitorHandover: { address: { max: 60, seconds: 60 }, token: { max: 10, seconds: 60 } },
  visitorRate: { address: { max: 60, seconds: 60 }, token: { max: 10, seconds: 60 } },
  visitorUpload: { address: { max: 60, seconds: 60 }, token: { max: 20, seconds: 60 } },
  register: { address: { max: 3, seconds: 3600 } },
  /** Calls made with an API token (CONTRACT §12), counted per token on every `/api` route it calls. */
  apiToken: { address: { max: 6000, seconds: 60 }, token: { max: 600, seconds: 60 } },
} satisfies Record<string, RouteLimit>;

export type LimitName = keyof typeof LIMITS;
export type LimitTable = Record<LimitName, RouteLimit>;

/** Reads `RATE_LIMITS` overrides onto the defaults; throws on an unknown name or a bad value. */
export function limitTable(overrides: string | undefined): LimitTable {
  const table: LimitTable = structuredClone(LIMITS);
  for (const entry of (overrides ?? '').split(',').map((part) => part.trim())) {
    if (!entry) continue;
    const match = /^(\w+)\.(address|token)=(\d+)\/(\d+(?:\.\d+)?)$/.exec(entry);
    const name = match?.[1];
    if (!match || !name || !(name in table)) throw new Error(`RATE_LIMITS: cannot read "${entry}"`);
    const seconds = Number(match[4]);
    if (!(seconds > 0)) throw new Error(`RATE_LIMITS: window of "${entry}" must be positive`);
    table[name as LimitName][match[2] as 'address' | 'token'] = { max: Number(match[3]), seconds };
  }
  return table;
}

type Check = (req: FastifyRequest) => Promise<{ isAllowed: boolean; isExceeded?: boolean; ttlInSeconds?: number }>;

/** The visitor token a request names, in its JSON body or its query; limits key on it, hashed. */
function tokenOf(req: FastifyRequest): string | undefined {
  for (const source of [req.body, req.query]) {
    if (source && typeof source === 'object' && 'YQToken' in source && typeof source.YQToken === 'string') return source.YQToken;
  }
  return undefined;
}

/** One-shot, as hashToken: counted for every message, without a native Hash object each time. */
const hashed = (token: string) => hash('sha256', token, 'base64url').slice(0, 22);

/** The key a request is counted under for one limit (`visitorMessage.address`) and one client: HTTP and sockets alike. */
const countKey = (limit: string, client: string) => `${limit}:${client}`;

/** Keys a process's counts hold at most; past it, ended windows are let go, then the oldest. */
const MAX_COUNTED_KEYS = 100_000;

/**
 * The request counts of one process (no Redis): a fixed window per key, as `@fastify/rate-limit`'s own
 * store counts, in one table that the HTTP routes (as the plugin's store) and the sockets' sends share.
 * A send is counted here directly: through the plugin each one cost a stand-in request, a key hashed and
 * normalized again, several promises and an LRU's reordering (3.6 % of the server's busy time at 10,000
 * messages a second). Unlike the plugin's store, which keeps 5,000 keys per limit and forgets the least
 * recently used, a key's window is kept until it ends unless MAX_COUNTED_KEYS are counted at once.
 */
export class WindowCounts {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxKeys = MAX_COUNTED_KEYS,
  ) {}

  /** Counts one request under `key` in its window of `windowMs`: the count so far, and the window's time left. */
  hit(key: string, windowMs: number): { count: number; ttlMs: number } {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      // A window begun again goes to the end of the table's order, which is the order of their ages.
      this.windows.delete(key);
      if (this.windows.size >= this.maxKeys) this.makeRoom(now);
      window = { count: 0, endsAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return { count: window.count, ttlMs: window.endsAt - now };
  }

  private makeRoom(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
    let over = this.windows.size - Math.floor(this.maxKeys * 0.9);
    for (const key of this.windows.keys()) {
      if (over-- <= 0) break;
      this.windows.delete(key);
    }
  }

  /** The plugin's store interface (`incr`, `child`): every limit counts in this one table, its keys named apart. */
  incr(key: string, done: (error: Error | null, result: { current: number; ttl: number }) => void, windowMs: number): void {
    const { count, ttlMs } = this.hit(key, windowMs);
    done(null, { current: count, ttl: ttlMs });
  }

  child(): WindowCounts {
    return this;
  }

  /** What the plugin constructs as its store (`new Store(params)`): this very table. */
  asStore(): new () => WindowCounts {
    const counts = this;
    // A constructor that returns an object makes `new` answer that object.
    return function Store() {
      return counts;
    } as unknown as new () => WindowCounts;
  }
}

/**
 * The request limits, counted by `@fastify/rate-limit`: in memory, or in Redis when `redisUrl` is set,
 * so that several processes share the counts. When Redis cannot answer, requests pass unlimited
 * (`skipOnError`) rather than failing: an outage of the limiter must not become an outage of the chat.
 */
export class Limits {
  private readonly checks = new Map<string, Check>();
  /** Tokens a handler named itself, for requests that carry theirs elsewhere (a multipart field). */
  private readonly named = new WeakMap<FastifyRequest, string>();
  /** The API token a request was authenticated with, apart from any visitor token it names. */
  private readonly apiTokens = new WeakMap<FastifyRequest, string>();

  private constructor(
    private readonly redis: Redis | null,
    private readonly table: LimitTable,
    /** This process's counts when there is no Redis, which the sockets' sends count in directly. */
    private readonly local: WindowCounts | undefined,
  ) {}

  static async register(
    app: FastifyInstance,
    table: LimitTable,
    redis: { url: string; prefix: string } | undefined,
    onError: (error: unknown) => void,
  ): Promise<Limits> {
    const client = redis
      ? new Redis(redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 2000, commandTimeout: 1000 })
      : null;
    if (client) {
      // One report per outage, not one per reconnection attempt.
      let healthy = true;
      client.on('ready', () => {
        healthy = true;
      });
      client.on('error', (error) => {
        if (healthy) onError(error);
        healthy = false;
      });
      // Requests counted before the first connection would pass uncounted; a Redis that is down at
      // start must not hold the start up, though.
      await Promise.race([once(client, 'ready'), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    }
    const local = client ? undefined : new WindowCounts();
    await app.register(rateLimit, {
      global: false,
      skipOnError: true,
      ...(client && redis ? { redis: client, nameSpace: `${redis.prefix}:rate-limit:` } : { store: local?.asStore() }),
    });
    const limits = new Limits(client, table, local);
    for (const [name, limit] of Object.entries(table)) {
      limits.add(app, `${name}.address`, limit.address, (req) => normalizeIP(req.ip));
      if (name === 'apiToken' && limit.token)
        limits.add(app, 'apiToken.token', limit.token, (req) => hashed(limits.apiTokens.get(req) ?? ''));
      else if (limit.token) limits.add(app, `${name}.token`, limit.token, (req) => hashed(limits.named.get(req) ?? tokenOf(req) ?? ''));
    }
    return limits;
  }

  private add(app: FastifyInstance, key: string, window: Window, keyOf: (req: FastifyRequest) => string): void {
    this.checks.set(
      key,
      app.createRateLimit({ max: window.max, timeWindow: window.seconds * 1000, keyGenerator: (req) => countKey(key, keyOf(req)) }),
    );
  }

  /** Counts the request against the route's address limit; 429 with Retry-After beyond it. */
  address(name: LimitName, req: FastifyRequest, reply: FastifyReply): Promise<void> {
    return this.enforce(`${name}.address`, req, reply);
  }

  /**
   * Counts the request against the route's token limit, when the route has one and a token is named:
   * `token`, or else the one in the request's JSON body or query. Returns the token counted.
   */
  async token(name: LimitName, req: FastifyRequest, reply: FastifyReply, token = tokenOf(req)): Promise<string | undefined> {
    if (token === undefined) return undefined;
    this.named.set(req, token);
    await this.enforce(`${name}.token`, req, reply);
    return token;
  }

  /** Counts a call made with an API token against that token's limit; 429 with Retry-After beyond it. */
  async apiToken(req: FastifyRequest, reply: FastifyReply, token: string): Promise<void> {
    this.apiTokens.set(req, token);
    await this.enforce('apiToken.token', req, reply);
  }

  /**
   * The count of one socket's sends: each counts as the HTTP call `name` counts a request, per address
   * and per visitor token, against the same counts; 429 beyond them. Made once per socket, so that its
   * keys are made once. A socket keeps no request (socket-routes.ts): with Redis, a stand-in with the
   * address is counted through the plugin, carrying the one field it reads beside it (a route's config).
   */
  sends(name: LimitName, address: string, token: string): () => Promise<void> {
    const { local } = this;
    if (local) {
      const limit = this.table[name];
      const counted: [key: string, window: Window][] = [[countKey(`${name}.address`, normalizeIP(address)), limit.address]];
      if (limit.token) counted.push([countKey(`${name}.token`, hashed(token)), limit.token]);
      return async () => {
        for (const [key, window] of counted) {
          if (local.hit(key, window.seconds * 1000).count > window.max) throw new ApiError(429, 'slowDown');
        }
      };
    }
    const standIn = { ip: address, routeOptions: { config: {} } } as unknown as FastifyRequest;
    this.named.set(standIn, token);
    return async () => {
      await this.enforce(`${name}.address`, standIn);
      await this.enforce(`${name}.token`, standIn);
    };
  }

  private async enforce(key: string, req: FastifyRequest, reply?: FastifyReply): Promise<void> {
    const check = this.checks.get(key);
    if (!check) return;
    const result = await check(req);
    if (result.isAllowed || !result.isExceeded) return;
    reply?.header('retry-after', Math.max(1, result.ttlInSeconds ?? 1));
    throw new ApiError(429, 'slowDown');
  }

  async close(): Promise<void> {
    this.redis?.disconnect();
  }
}
