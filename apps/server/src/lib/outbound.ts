import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

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
  private readonly agents = new Map<string, HttpAgent>();

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

  private agentFor(url: URL, pinned: { address: string; family: 4 | 6 }, lookup: LookupFunction): HttpAgent {
    const key = `${url.protocol}//${url.host}@${pinned.address}`;
    let agent = this.agents.get(key);
    if (agent) {
      // Most recently used last: the map's order is the order to let targets go in.
      this.agents.delete(key);
    } else {
      const options = {
        keepAlive: true,
        maxSockets: SOCKETS_PER_TARGET,
        maxFreeSockets: SOCKETS_PER_TARGET,
        timeout: IDLE_SOCKET_MS,
        lookup,
      };
      agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
      const oldest = this.agents.size >= MAX_TARGETS ? this.agents.keys().next().value : undefined;
      if (oldest !== undefined) {
        this.agents.get(oldest)?.destroy();
        this.agents.delete(oldest);
      }
    }
    this.agents.set(key, agent);
    return agent;
  }

  /** Closes every kept connection (at shutdown). */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  async request(raw: string, options: OutboundRequest): Promise<OutboundResponse> {
    const url = this.parseUrl(raw);
    // The time allowed, on a timer cleared once the exchange is over, which ends whatever stage the exchange
    // is at (`onTimeout`). A timeout signal would fire for every finished request too, its time later, and
    // an abort signal per request cost listeners on the request and the socket: at thousands of webhook
    // deliveries a second both showed in the sending thread's profile.
    let expired = false;
    let onTimeout: () => void = () => undefined;
    const timer = setTimeout(() => {
      expired = true;
      onTimeout();
    }, options.timeoutMs);
    // Nothing to wait for at exit: the request is abandoned with the process.
    timer.unref();
    const finish = () => clearTimeout(timer);
    const timedOut = () => new OutboundError('timeout', `no answer within ${options.timeoutMs} ms`);
    let pinned: { address: string; family: 4 | 6 };
    try {
      pinned = await new Promise((resolve, reject) => {
        onTimeout = () => reject(timedOut());
        this.target(url).then(resolve, reject);
      });
    } catch (error) {
      finish();
      throw error;
    }
    // The time may have run out between the address and the request.
    if (expired) throw timedOut();
    const lookup: LookupFunction = (_host, lookupOptions, callback) => {
      if (lookupOptions.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
      else callback(null, pinned.address, pinned.family);
    };
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    const requestOptions: RequestOptions = {
      method: options.method ?? 'GET',
      headers: { ...options.headers, ...(options.body !== undefined ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}) },
      lookup,
      agent: this.agentFor(url, pinned, lookup),
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<OutboundResponse>((resolve, reject) => {
      const req = send(url, requestOptions, (res: IncomingMessage) => {
        // Over once the answer has been read, drained or dropped.
        res.once('close', finish);
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.destroy();
          reject(new OutboundError('redirect', `answered a redirect (${status}), which is not followed`));
          return;
        }
        if (options.readBody === false) {
          resolve({ status, headers: res.headers, text: '' });
          // Drained unread so the connection can serve the next request; a large answer closes it instead.
          let drained = 0;
          res.on('data', (chunk: Buffer) => {
            drained += chunk.length;
            if (drained > DRAIN_BYTES) res.destroy();
          });
          res.on('error', () => undefined);
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            reject(new OutboundError('tooLarge', `the answer is larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (error) => reject(expired ? timedOut() : new OutboundError('network', error.message)));
      });
      // Past the time allowed the request, and the answer being read with it, are dropped.
      onTimeout = () => req.destroy(timedOut());
      req.on('error', (error) => {
        finish();
        reject(expired ? timedOut() : new OutboundError('network', error.message));
      });
      req.end(options.body);
    });
  }
}
