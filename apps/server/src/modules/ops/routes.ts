import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '../../config.js';
import type { Storage } from '../../db/index.js';
import { forbidden, unauthorized } from '../../lib/errors.js';
import { bearerToken } from '../../lib/tokens.js';
import type { Bus } from '../../realtime/bus.js';
import type { Metrics } from './metrics.js';

/** A readiness check that takes longer than this counts as failed: a hung database is not ready. */
export const READY_TIMEOUT_MS = 2000;

export interface OpsDeps {
  config: Config;
  storage: Storage;
  bus: Bus;
  metrics: Metrics;
}

/** CONTRACT §10: liveness, readiness and Prometheus metrics, outside the `/api` envelope. */
export function opsRoutes(app: FastifyInstance, { config, storage, bus, metrics }: OpsDeps): void {
  app.get('/healthz', (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));

  app.get('/readyz', async (req, reply) => {
    const checks: Record<string, 'ok' | 'down'> = {};
    const [database, redis] = await Promise.all([
      withTimeout(sql`select 1`.execute(storage.db)),
      config.redisUrl ? withTimeout(bus.ping()) : Promise.resolve(undefined),
    ]);
    checks.database = database ? 'down' : 'ok';
    if (database) req.log.warn({ err: database }, 'readiness: database check failed');
    if (config.redisUrl) {
      checks.redis = redis ? 'down' : 'ok';
      if (redis) req.log.warn({ err: redis }, 'readiness: redis check failed');
    }
    const ready = Object.values(checks).every((state) => state === 'ok');
    return reply
      .status(ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: ready ? 'ok' : 'unavailable', ...checks });
  });

  const expected = config.metricsToken ? digest(config.metricsToken) : null;
  app.get('/metrics', async (req, reply) => {
    if (expected) {
      const given = bearerToken(req.headers.authorization);
      // Compared as digests, so the comparison takes the same time whatever the length or content given.
      if (!given || !timingSafeEqual(digest(given), expected)) throw unauthorized();
    } else if (!fromLoopback(req, config)) {
      throw forbidden();
    }
    const text = await metrics.registry.metrics();
    return reply.header('cache-control', 'no-store').type(metrics.registry.contentType).send(text);
  });
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Resolves with the error, or undefined once `check` succeeded within READY_TIMEOUT_MS. */
async function withTimeout(check: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Error>((resolve) => {
    timer = setTimeout(() => resolve(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check.then(() => undefined), timeout]);
  } catch (error) {
    return error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * From this host. A request that came through a proxy the server does not trust to name the client is
 * not: otherwise a reverse proxy on the same host would open the metrics to everyone.
 */
function fromLoopback(req: FastifyRequest, config: Config): boolean {
  if (config.trustProxy === false && (req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined)) return false;
  return isLoopback(req.ip);
}

export function isLoopback(address: string): boolean {
  const bare = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1';
}
