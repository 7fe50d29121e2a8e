import { resolve } from 'node:path';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
const seconds = z.coerce
  .number()
  .int()
  .min(1)
  .max(10 * 365 * 24 * 3600);
const bytes = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const emptyAsUndefined = (value: unknown) => (value === '' ? undefined : value);

const envSchema = z.object({
  PORT: port.default(10000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must start with postgres://')
      .optional(),
  ),
  /** PostgreSQL schema to work in (tests isolate themselves with it); `public` by default. */
  DATABASE_SCHEMA: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/)
      .optional(),
  ),
  REDIS_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^rediss?:\/\//, 'must start with redis://')
      .optional(),
  ),
  /** Prefix of the Redis channels, so several deployments (or test runs) can share one Redis. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[\w:.-]*$/)
    .default('parley'),
  ADMIN_USERNAME: z.string().trim().min(1).max(64).default('admin'),
  ADMIN_PASSWORD: z.preprocess(emptyAsUndefined, z.string().min(6).max(128).optional()),
  PUBLIC_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
  TOKEN_TTL: seconds.default(7200),
  REFRESH_TTL: seconds.default(604800),
  /** Behind a reverse proxy: 'true', a hop count, or a comma-separated list of proxy addresses. */
  TRUST_PROXY: z.preprocess(emptyAsUndefined, z.string().max(1024).optional()),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Where the built console and widget are served from; the build output by default. */
  CONSOLE_DIR: z.string().optional(),
  WIDGET_DIR: z.string().optional(),
  /** Upload quotas in bytes: per visitor and per address over the last 24 hours, all stored uploads, free disk to keep. */
  UPLOAD_VISITOR_DAILY_BYTES: bytes.default(50 * 1024 * 1024),
  UPLOAD_ADDRESS_DAILY_BYTES: bytes.default(200 * 1024 * 1024),
  UPLOAD_TOTAL_BYTES: bytes.default(10 * 1024 * 1024 * 1024),
  UPLOAD_MIN_FREE_BYTES: bytes.default(1024 * 1024 * 1024),
  /** How often uploads no message references are swept, and how old they must be. */
  UPLOAD_SWEEP_INTERVAL: seconds.default(3600),
  UPLOAD_SWEEP_GRACE: seconds.default(86400),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  databaseSchema: string | undefined;
  redisUrl: string | undefined;
  redisPrefix: string;
  adminUsername: string;
  adminPassword: string | undefined;
  /** Absolute base for embed codes and links; derived from host and port when unset. */
  publicUrl: string | undefined;
  tokenTtlSeconds: number;
  refreshTtlSeconds: number;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  /** Whom to believe about the client's address (X-Forwarded-For); nobody by default. */
  trustProxy: boolean | string[] | ((address: string, hop: number) => boolean);
  consoleDir: string;
  widgetDir: string;
  uploads: UploadLimits;
}

export interface UploadLimits {
  visitorDailyBytes: number;
  addressDailyBytes: number;
  totalBytes: number;
  /** Uploads are refused while the disk holding them has less free space than this. */
  minFreeBytes: number;
  sweepIntervalMs: number;
  /** An upload no message references is removed once this old. */
  sweepGraceMs: number;
}

export class ConfigError extends Error {}

/** Parses the environment once; nothing else in the server reads `process.env`. */
export function loadConfig(env: Record<string, string | undefined>, appRoot: string): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databaseSchema: e.DATABASE_SCHEMA,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    adminUsername: e.ADMIN_USERNAME,
    adminPassword: e.ADMIN_PASSWORD,
    publicUrl: e.PUBLIC_URL?.replace(/\/$/, ''),
    tokenTtlSeconds: e.TOKEN_TTL,
    refreshTtlSeconds: e.REFRESH_TTL,
    logLevel: e.LOG_LEVEL,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    consoleDir: resolve(e.CONSOLE_DIR ?? `${appRoot}/apps/console/dist`),
    widgetDir: resolve(e.WIDGET_DIR ?? `${appRoot}/apps/widget/dist`),
    uploads: {
      visitorDailyBytes: e.UPLOAD_VISITOR_DAILY_BYTES,
      addressDailyBytes: e.UPLOAD_ADDRESS_DAILY_BYTES,
      totalBytes: e.UPLOAD_TOTAL_BYTES,
      minFreeBytes: e.UPLOAD_MIN_FREE_BYTES,
      sweepIntervalMs: e.UPLOAD_SWEEP_INTERVAL * 1000,
      sweepGraceMs: e.UPLOAD_SWEEP_GRACE * 1000,
    },
  };
}

function parseTrustProxy(value: string | undefined): Config['trustProxy'] {
  if (!value || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}
