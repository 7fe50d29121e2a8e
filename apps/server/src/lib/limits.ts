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

  private constructor(private readonly redis: Redis | null) {}

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
    await app.register(rateLimit, {
      global: false,
      skipOnError: true,
      ...(client && redis ? { redis: client, nameSpace: `${redis.prefix}:rate-limit:` } : {}),
    });
    const limits = new Limits(client);
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
      app.createRateLimit({ max: window.max, timeWindow: window.seconds * 1000, keyGenerator: (req) => `${key}:${keyOf(req)}` }),
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
   * Counts a message sent over a socket as the HTTP call `name` counts a request, per address and per
   * visitor token, against the same counts. A socket keeps no request (socket-routes.ts): a stand-in
   * with the address is counted, carrying the one field the limiter reads beside it (a route's config).
   */
  async frame(name: LimitName, address: string, token: string): Promise<void> {
    const standIn = { ip: address, routeOptions: { config: {} } } as unknown as FastifyRequest;
    this.named.set(standIn, token);
    await this.enforce(`${name}.address`, standIn);
    await this.enforce(`${name}.token`, standIn);
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
