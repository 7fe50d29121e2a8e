import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { BlockList, isIPv6 } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';

/** How many of something each address holds at once, up to `max`. */
export class PerAddress {
  private readonly held = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Counts one more for `address`; false (and nothing counted) when it already holds `max`. */
  acquire(address: string): boolean {
    const count = this.held.get(address) ?? 0;
    if (count >= this.max) return false;
    this.held.set(address, count + 1);
    return true;
  }

  release(address: string): void {
    const count = (this.held.get(address) ?? 0) - 1;
    if (count > 0) this.held.set(address, count);
    else this.held.delete(address);
  }
}

const NAMED_RANGES: Record<string, [string, number, 'ipv4' | 'ipv6'][]> = {
  loopback: [
    ['127.0.0.0', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
  ],
  linklocal: [
    ['169.254.0.0', 16, 'ipv4'],
    ['fe80::', 10, 'ipv6'],
  ],
  uniquelocal: [
    ['10.0.0.0', 8, 'ipv4'],
    ['172.16.0.0', 12, 'ipv4'],
    ['192.168.0.0', 16, 'ipv4'],
    ['fc00::', 7, 'ipv6'],
  ],
};

/**
 * Whom to believe about the client's address (X-Forwarded-For), as Fastify's `trustProxy` takes it: nobody,
 * everybody, a list of addresses, CIDR ranges and proxy-addr's names, or a rule over the hops.
 */
export type TrustProxy = boolean | string[] | ((address: string, hop: number) => boolean);

/** Whether a peer is one of the TRUST_PROXY proxies (addresses, CIDR ranges or proxy-addr's names). */
export function trustedPeer(trustProxy: TrustProxy): (address: string) => boolean {
  if (trustProxy === false) return () => false;
  if (trustProxy === true) return () => true;
  if (typeof trustProxy === 'function') return (address) => trustProxy(address, 0);
  const list = new BlockList();
  for (const entry of trustProxy) {
    const named = NAMED_RANGES[entry];
    if (named) {
      for (const [network, prefix, type] of named) list.addSubnet(network, prefix, type);
      continue;
    }
    const [network = '', prefix] = entry.split('/');
    const type = isIPv6(network) ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(network, type);
    else list.addSubnet(network, Number(prefix), type);
  }
  return (address) => {
    const plain = address.replace(/^::ffff:(?=\d+\.)/, '');
    return list.check(plain, isIPv6(plain) ? 'ipv6' : 'ipv4');
  };
}

/**
 * Closes a TCP connection at once when its address already holds `max` of them: idle connections from
 * one address must not use up the process's file descriptors. A reverse proxy carries every client, so
 * its connections are not counted (the sockets are then capped per client by `capSockets`).
 */
export function capConnections(server: Server, max: number, trusted: (address: string) => boolean): void {
  const open = new PerAddress(max);
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (!address || trusted(address)) return;
    if (!open.acquire(address)) {
      socket.destroy();
      return;
    }
    socket.once('close', () => open.release(address));
  });
}

/**
 * Refuses a WebSocket upgrade with 429 when the client's address (behind a trusted proxy: the
 * forwarded one) already holds `max` sockets of that route; counted until the connection closes.
 */
export function capSockets(app: FastifyInstance, maxByUrl: Record<string, number>): void {
  const counters = new Map(Object.entries(maxByUrl).map(([url, max]) => [url, new PerAddress(max)]));
  app.addHook('onRequest', async (req) => {
    const counter = counters.get(req.routeOptions.url ?? '');
    if (!counter || req.headers.upgrade?.toLowerCase() !== 'websocket') return;
    const address = req.ip;
    if (!counter.acquire(address)) throw new ApiError(429, 'slowDown');
    req.raw.socket.once('close', () => counter.release(address));
  });
}
