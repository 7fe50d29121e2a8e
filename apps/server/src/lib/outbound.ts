import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { type Dispatcher, Pool } from 'undici';

/** Why an outbound request was refused or failed; the caller decides what its user is told. */
export type OutboundFailure = 'badUrl' | 'blockedAddress' | 'unresolved' | 'redirect' | 'timeout' | 'tooLarge' | 'network';

export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface OutboundRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A Buffer for binary bodies (an encrypted Web Push). */
  body?: string | Buffer;
  /** The whole exchange, from resolving the host to the last byte of the answer. */
  timeoutMs: number;
  /** Bytes of answer read at most; a longer answer fails as `tooLarge`. */
  maxBytes?: number;
  /** False: only the status and headers are wanted; the body is never read (a receiver's 100 MB costs nothing). */
  readBody?: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** `base` with `path` appended to its path: a query or fragment in `base` can never take the path over. */
export function appendPath(base: string, path: string): string {
  const url = new URL(base);
  url.search = '';
  url.hash = '';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  return url.toString();
}

type Resolve = (host: string) => Promise<{ address: string; family: number }[]>;

const DEFAULT_MAX_BYTES = 1024 * 1024;

/** The address as ipaddr reads it, an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) taken as its IPv4. */
function parsed(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  const ip = ipaddr.parse(address);
  return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip;
}

/** `[::1]` → `::1`: URL keeps an IPv6 literal's brackets in `hostname`. */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** The entries of OUTBOUND_ALLOW, split into host names and address ranges; throws on a malformed range. */
export function parseOutboundAllow(entries: readonly string[]): { hosts: Set<string>; ranges: Cidr[] } {
  const hosts = new Set<string>();
  const ranges: Cidr[] = [];
  for (const raw of entries) {
    const entry = bareHost(raw.trim().toLowerCase());
    if (entry === '') continue;
    if (entry.includes('/')) {
      const range = ipaddr.parseCIDR(entry);
      ranges.push(
        range[0].kind() === 'ipv6' && (range[0] as ipaddr.IPv6).isIPv4MappedAddress()
          ? [(range[0] as ipaddr.IPv6).toIPv4Address(), range[1] - 96]
          : range,
      );
    } else {
      const ip = parsed(entry);
      if (ip) ranges.push([ip, ip.kind() === 'ipv4' ? 32 : 128]);
      else hosts.add(entry);
    }
  }
  return { hosts, ranges };
}

/** Connections kept open to one checked address at most: also how many requests a receiver sees at once. */
const SOCKETS_PER_TARGET = 16;
/** An idle kept connection is closed after this; receivers commonly close theirs after 5–60 s. */
const IDLE_SOCKET_MS = 4000;
/** Targets whose connections are kept at most; the one used longest ago is let go first. */
const MAX_TARGETS = 256;
/** Bytes of an answer nobody reads drained to keep its connection; past this the connection is closed. */
const DRAIN_BYTES = 64 * 1024;
/** A connection not made in this time fails; a request's own shorter time ends it sooner. */
const CONNECT_MS = 10_000;

/**
 * The one HTTP client for URLs that users store (the robot's language model, embeddings, webhooks):
 * CONTRACT §12's outbound rule. The host is resolved first and every address it resolves to must be a
 * public unicast one (loopback, private, link-local, multicast, shared, reserved, and IPv6 forms that
 * embed an IPv4 address are refused) unless OUTBOUND_ALLOW lists the host or the address; the connection
 * then goes to the address that was checked, so a second DNS answer cannot swap it for another. Redirects
 * are not followed, and the exchange is bounded in time and in size.
 */
export class OutboundClient {
  private readonly allow: { hosts: Set<string>; ranges: Cidr[] };
  /**
   * Kept connections, by URL origin and the address checked for this request: a connection is reused
   * only towards the address the rule passed just now, so reuse never reaches an address a later DNS
   * answer would have led to instead. A webhook at a busy site's rate then costs a request, not a TCP
   * (and TLS) handshake each.
   */
  private readonly pools = new Map<string, Pool>();

  constructor(
    allow: readonly string[],
    private readonly resolve: Resolve = (host) => dnsLookup(host, { all: true, verbatim: true }),
  ) {
    this.allow = parseOutboundAllow(allow);
  }

  /** Whether an address may be reached: public unicast, or listed in OUTBOUND_ALLOW. */
  addressAllowed(address: string): boolean {
    const ip = parsed(address);
    if (!ip) return false;
    if (this.allow.ranges.some(([base, bits]) => base.kind() === ip.kind() && ip.match(base, bits))) return true;
    // Only global unicast: every named special range of either family (and 6to4, Teredo, NAT64, which
    // carry an IPv4 address inside) is refused.
    return ip.range() === 'unicast';
  }

  /** The URL, checked for its form: http(s), no credentials inside; throws `badUrl`. */
  parseUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new OutboundError('badUrl', 'not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('badUrl', 'only http and https are allowed');
    if (url.username || url.password) throw new OutboundError('badUrl', 'credentials inside the URL are not allowed');
    return url;
  }

  /**
   * The address the URL's host is reached at, after the rule is checked: every address the name resolves
   * to must pass, so a name that answers one public and one private address is refused.
   */
  async target(url: URL): Promise<{ address: string; family: 4 | 6 }> {
    const host = bareHost(url.hostname.toLowerCase());
    const hostAllowed = this.allow.hosts.has(host);
    let addresses: { address: string; family: number }[];
    if (ipaddr.isValid(host)) {
      addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
    } else {
      try {
        addresses = await this.resolve(host);
      } catch {
        throw new OutboundError('unresolved', `${host} could not be resolved`);
      }
    }
    const first = addresses[0];
    if (!first) throw new OutboundError('unresolved', `${host} could not be resolved`);
    if (!hostAllowed) {
      for (const { address } of addresses) {
        if (!this.addressAllowed(address))
          throw new OutboundError('blockedAddress', `${host} resolves to an address that may not be reached`);
      }
    }
    return { address: first.address, family: first.family === 6 ? 6 : 4 };
  }

  /** Checks a URL a user is about to store: its form, and its address where the name resolves now. */
  async check(raw: string): Promise<void> {
    const url = this.parseUrl(raw);
    try {
      await this.target(url);
    } catch (error) {
      // A name that does not resolve today may resolve tomorrow; the rule is checked again at each request.
      if (error instanceof OutboundError && error.reason === 'unresolved') return;
      throw error;
    }
  }

  private poolFor(url: URL, pinned: { address: string; family: 4 | 6 }): Pool {
    const key = `${url.origin}@${pinned.address}`;
    let pool = this.pools.get(key);
    if (pool) {
      // Most recently used last: the map's order is the order to let targets go in.
      this.pools.delete(key);
    } else {
      const lookup: LookupFunction = (_host, lookupOptions, callback) => {
        if (lookupOptions.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
        else callback(null, pinned.address, pinned.family);
      };
      pool = new Pool(url.origin, {
        connections: SOCKETS_PER_TARGET,
        // One request at a time on a connection: a slow answer never holds up another behind it.
        pipelining: 1,
        keepAliveTimeout: IDLE_SOCKET_MS,
        // A receiver's Keep-Alive hint may shorten the wait, never lengthen it.
        keepAliveMaxTimeout: IDLE_SOCKET_MS,
        connect: { lookup, timeout: CONNECT_MS },
      });
      const oldest = this.pools.size >= MAX_TARGETS ? this.pools.keys().next().value : undefined;
      if (oldest !== undefined) {
        const dropped = this.pools.get(oldest);
        this.pools.delete(oldest);
        dropped?.destroy().catch(() => undefined);
      }
    }
    this.pools.set(key, pool);
    return pool;
  }

  /** Closes every kept connection (at shutdown). */
  close(): void {
    for (const pool of this.pools.values()) pool.destroy().catch(() => undefined);
    this.pools.clear();
  }

  async request(raw: string, options: OutboundRequest): Promise<OutboundResponse> {
    const url = this.parseUrl(raw);
    // The time allowed, on one timer cleared once the exchange is over, which ends whatever stage the
    // exchange is at (`onTimeout`). An abort signal per request costs listeners and a timer of its own for
    // every finished request too: at thousands of webhook deliveries a second both showed in the sending
    // thread's profile.
    const startedAt = performance.now();
    let expired = false;
    let onTimeout: () => void = () => undefined;
    const timer = setTimeout(() => {
      expired = true;
      onTimeout();
    }, options.timeoutMs);
    // Nothing to wait for at exit: the request is abandoned with the process.
    timer.unref();
    const timedOut = () => new OutboundError('timeout', `no answer within ${options.timeoutMs} ms`);
    let pinned: { address: string; family: 4 | 6 };
    try {
      pinned = await new Promise((resolve, reject) => {
        onTimeout = () => reject(timedOut());
        this.target(url).then(resolve, reject);
      });
    } catch (error) {
      clearTimeout(timer);
      throw error;
    }
    // The time may have run out between the address and the request.
    if (expired) throw timedOut();
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    const readBody = options.readBody !== false;
    // Left for the connection and the answer's headers; the timer above ends the rest.
    const remaining = Math.max(1, Math.ceil(options.timeoutMs - (performance.now() - startedAt)));
    return new Promise<OutboundResponse>((resolve, reject) => {
      // Settled once; the timer is cleared when the exchange is over (`onResponseEnd`, `onResponseError`),
      // which for an answer drained unread is after the caller has its status.
      let settled = false;
      const fail = (error: OutboundError) => {
        if (settled) return;
        settled = true;
        reject(error);
      };
      const succeed = (response: OutboundResponse) => {
        if (settled) return;
        settled = true;
        resolve(response);
      };
      let controller: Dispatcher.DispatchController | undefined;
      onTimeout = () => {
        fail(timedOut());
        controller?.abort(timedOut());
      };
      let status = 0;
      let headers: Record<string, string | string[] | undefined> = {};
      const chunks: Buffer[] = [];
      let size = 0;
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(started) {
          controller = started;
          // The time ran out while the request waited for a connection: it is never sent.
          if (expired) started.abort(timedOut());
        },
        onResponseStart(started, statusCode, responseHeaders) {
          if (statusCode < 200) return;
          status = statusCode;
          headers = responseHeaders;
          if (status >= 300 && status < 400) {
            fail(new OutboundError('redirect', `answered a redirect (${status}), which is not followed`));
            started.abort(new OutboundError('redirect', 'not followed'));
            return;
          }
          // Only the status is wanted: the caller has it now; the body is drained below to keep the
          // connection, within the time allowed still (the timer ends a receiver that drips it).
          if (!readBody) succeed({ status, headers, text: '' });
        },
        onResponseData(started, chunk) {
          size += chunk.length;
          if (!readBody) {
            // An answer nobody reads is drained to keep its connection; a large one closes it instead.
            if (size > DRAIN_BYTES) started.abort(new OutboundError('tooLarge', 'not read'));
            return;
          }
          if (size > maxBytes) {
            fail(new OutboundError('tooLarge', `the answer is larger than ${maxBytes} bytes`));
            started.abort(new OutboundError('tooLarge', 'not read'));
            return;
          }
          chunks.push(chunk);
        },
        onResponseEnd() {
          clearTimeout(timer);
          // The pool takes a connection back a turn of the event loop after its answer (it first looks for
          // a close the receiver sends despite keep-alive); settling after that turn lets a caller's next
          // request reuse the connection instead of opening another beside it.
          const text = readBody ? Buffer.concat(chunks).toString('utf8') : '';
          queueMicrotask(() => setImmediate(succeed, { status, headers, text }));
        },
        onResponseError(_started, error) {
          clearTimeout(timer);
          if (error instanceof OutboundError) fail(error);
          else fail(expired || isTimeout(error) ? timedOut() : new OutboundError('network', error.message));
        },
      };
      this.poolFor(url, pinned).dispatch(
        {
          path: `${url.pathname}${url.search}`,
          method: options.method ?? 'GET',
          headers: options.headers,
          body: options.body,
          // Never sent behind another request on the same connection, whatever the method.
          idempotent: false,
          headersTimeout: remaining,
          bodyTimeout: remaining,
        },
        handler,
      );
    });
  }
}

/** undici's own timeouts: connecting, waiting for the headers, and silence in the body. */
function isTimeout(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}
