import type { Server } from 'node:http';

/**
 * The absolute base of the addresses Parley hands out (chat links, embed codes): `PUBLIC_URL` when set,
 * else `http://HOST:PORT` with the port actually listened on (PORT=0 picks one at start).
 */
export function publicBaseUrl(config: { publicUrl: string | undefined; host: string; port: number }, server: Server): string {
  if (config.publicUrl) return config.publicUrl;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${port}`;
}
