import { resolve } from 'node:path';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, SOCKET_IDLE_MS } from '@parley/protocol';
import { z } from 'zod';
import { isCommonPassword } from './lib/common-passwords.js';
import type { TrustProxy } from './lib/connections.js';
import { type LimitTable, limitTable } from './lib/limits.js';
import { parseOutboundAllow } from './lib/outbound.js';
import type { ThreadPriority } from './lib/threads.js';
import { isTimeZone, serverTimeZone } from './lib/time.js';

const port = z.coerce.number().int().min(0).max(65535);
const seconds = z.coerce
  .number()
  .int()
  .min(1)
  .max(10 * 365 * 24 * 3600);
const milliseconds = z.coerce.number().int().min(1).max(3600_000);
const count = z.coerce.number().int().min(1).max(1_000_000);
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
  /**
   * How SQLite syncs a commit to disk. `normal` (WAL): a commit survives a crash of the process, not
   * always a power loss; `full`: it survives a power loss too, for one fsync per commit.
   */
  SQLITE_SYNCHRONOUS: z.preprocess(
    (value) => (typeof value === 'string' ? emptyAsUndefined(value.trim().toLowerCase()) : value),
    z.enum(['normal', 'full']).default('normal'),
  ),
  /** How often SQLite's write-ahead log is copied back into the database file, by a thread of its own. */
  SQLITE_CHECKPOINT_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /**
   * The write-ahead log's size (MiB) past which, under writes that never pause, the server's own
   * connection copies the last frames itself so that the log starts over (see startCheckpointer).
   */
  SQLITE_WAL_LIMIT_MB: z.coerce.number().int().min(1).max(4096).default(16),
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
  ADMIN_PASSWORD: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .min(MIN_PASSWORD_LENGTH)
      .max(MAX_PASSWORD_LENGTH)
      .refine((value) => !isCommonPassword(value), 'is a common password')
      .optional(),
  ),
  PUBLIC_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
  /** The site's IANA time zone: a `YYYY-MM-DD` filter and "today" mean a day there. */
  SITE_TIMEZONE: z.preprocess(emptyAsUndefined, z.string().max(64).refine(isTimeZone, 'is not an IANA time zone').optional()),
  TOKEN_TTL: seconds.default(7200),
  REFRESH_TTL: seconds.default(604800),
  /** Failed logins allowed per account from one address, and per address, within LOGIN_WINDOW seconds. */
  LOGIN_FAILURES_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(10),
  LOGIN_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(50),
  LOGIN_WINDOW: seconds.default(15 * 60),
  /**
   * Failures for one account, summed over every address, within LOGIN_WINDOW before each further attempt
   * for it waits: LOGIN_ACCOUNT_DELAY seconds, doubling with each attempt up to LOGIN_ACCOUNT_DELAY_MAX.
   */
  LOGIN_ACCOUNT_FAILURES: z.coerce.number().int().min(1).max(100_000).default(30),
  LOGIN_ACCOUNT_DELAY: seconds.default(2),
  LOGIN_ACCOUNT_DELAY_MAX: seconds.default(60),
  /** '1': Admins without two-factor sign-in set it up at their next sign-in before anything else. */
  REQUIRE_ADMIN_MFA: z.enum(['0', '1', 'true', 'false', '']).default('0'),
  /** Seconds a correct password waits for its two-factor code (the sign-in ticket's life). */
  MFA_TICKET_TTL: seconds.default(300),
  /** Behind a reverse proxy: 'true', a hop count, or a comma-separated list of proxy addresses. */
  TRUST_PROXY: z.preprocess(emptyAsUndefined, z.string().max(1024).optional()),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Where the built console and widget are served from; the build output by default. */
  CONSOLE_DIR: z.string().optional(),
  WIDGET_DIR: z.string().optional(),
  /** Overrides of the request limits' table (lib/limits.ts): `name.address=max/seconds,…`. */
  RATE_LIMITS: z.string().max(4096).optional(),
  /** Milliseconds a client may take to send a request's headers, and the whole request (uploads included). */
  HEADERS_TIMEOUT_MS: milliseconds.default(10_000),
  REQUEST_TIMEOUT_MS: milliseconds.default(60_000),
  /** Milliseconds an idle keep-alive connection, or a silent one, is kept open. */
  KEEP_ALIVE_TIMEOUT_MS: milliseconds.default(5_000),
  IDLE_TIMEOUT_MS: milliseconds.default(30_000),
  /** Concurrent TCP connections from one address (not counted for TRUST_PROXY addresses), and sockets per address. */
  MAX_CONNECTIONS_PER_ADDRESS: count.default(256),
  MAX_VISITOR_SOCKETS_PER_ADDRESS: count.default(100),
  MAX_AGENT_SOCKETS_PER_ADDRESS: count.default(100),
  /** CSV exports (history, knowledge base) running at once for one agent, and in one process: beyond, 429. */
  EXPORT_MAX_PER_AGENT: count.default(2),
  EXPORT_MAX_PER_PROCESS: count.default(4),
  /** When set, `GET /metrics` answers anyone who sends it as a bearer token (and no one else). */
  METRICS_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(16).max(256).optional()),
  /** Seals the secrets the database keeps; at least 32 characters. Unset: a key file in DATA_DIR. */
  SECRET_KEY: z.preprocess(emptyAsUndefined, z.string().min(32).max(1024).optional()),
  /** Hosts or CIDRs that user-stored URLs may reach although they are loopback, private or link-local. */
  OUTBOUND_ALLOW: z.preprocess(emptyAsUndefined, z.string().max(4096).optional()),
  /** `off`: the robot matches words only, without the built-in English sentence model (and its worker). */
  ROBOT_SEMANTIC: z.preprocess(emptyAsUndefined, z.enum(['on', 'off']).default('off')),
  /**
   * Milliseconds a silent WebSocket is kept before it is closed with 4408: the protocol's 15 s (§6), which
   * clients rely on; only tests shorten it, to watch the rule without waiting 15 s.
   */
  SOCKET_IDLE_MS: z.coerce.number().int().min(100).max(600_000).default(SOCKET_IDLE_MS),
  /** How long a visitor may be without a socket (a reload, a page change) before it is reported gone. */
  PRESENCE_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(4000),
  /** SQLite: how often new messages and visitors are taken into the search indexes (a search finds them before). */
  SEARCH_INDEX_MS: z.coerce.number().int().min(10).max(60_000).default(100),
  /** How often each process looks for conversation timers (auto answers, auto close) that came due. */
  TIMER_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /** On SIGTERM, how long closing may take before the process exits anyway. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** Upload quotas in bytes: per visitor and per address over the last 24 hours, all stored uploads, free disk to keep. */
  UPLOAD_VISITOR_DAILY_BYTES: bytes.default(50 * 1024 * 1024),
  UPLOAD_ADDRESS_DAILY_BYTES: bytes.default(200 * 1024 * 1024),
  UPLOAD_TOTAL_BYTES: bytes.default(10 * 1024 * 1024 * 1024),
  UPLOAD_MIN_FREE_BYTES: bytes.default(1024 * 1024 * 1024),
  /** How often uploads no message references are swept, and how old they must be. */
  // Fractions are allowed so that a test can watch several sweeps without waiting whole seconds.
  UPLOAD_SWEEP_INTERVAL: z.coerce
    .number()
    .min(0.05)
    .max(10 * 365 * 24 * 3600)
    .default(3600),
  UPLOAD_SWEEP_GRACE: seconds.default(86400),
  /** The language of what the server writes on its own (mails): zh or en. */
  SITE_LANGUAGE: z.enum(['zh', 'en']).default('zh'),
  /** Outgoing mail: smtp:// or smtps:// with credentials in the URL; no mail is sent while unset. */
  SMTP_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .max(1024)
      .regex(/^smtps?:\/\/[^\s]+$/, 'must start with smtp:// or smtps://')
      .optional(),
  ),
  MAIL_FROM: z.preprocess(emptyAsUndefined, z.string().trim().max(320).optional()),
  /** Who is mailed each new leave-message: a comma-separated list of addresses. */
  LETTER_MAIL_TO: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .max(4096)
      .transform((value) =>
        value
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.email()))
      .optional(),
  ),
  /** How long the link of a transcript address's confirmation mail stays valid. */
  TRANSCRIPT_CONFIRM_TTL: seconds.default(86400),
  /** WeChat's API (§11): the operator's own setting, so not through the guard of user-stored URLs; tests name a double. */
  WECHAT_API_BASE: z.preprocess(emptyAsUndefined, z.url().default('https://api.weixin.qq.com')),
  /** Milliseconds a call to WeChat may take before it counts as failed (and a send is retried). */
  WECHAT_TIMEOUT_MS: milliseconds.default(5000),
  /** The first wait before a failed send is tried again, doubled at each attempt up to ten minutes. */
  WECHAT_RETRY_MS: milliseconds.default(2000),
  /** How often each process looks for WeChat sends that came due (a kick starts new ones at once). */
  WECHAT_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /** How far a push's signed timestamp may be from now before it is refused as a replay (WeChat's clock is NTP-synced). */
  WECHAT_PUSH_MAX_AGE_S: z.coerce.number().int().min(1).max(86_400).default(300),
  /** WeChat's typing indicator is called at most this often per user while an agent types (WeChat shows it ~15 s). */
  WECHAT_TYPING_MS: milliseconds.default(12_000),
  /** The first wait before a failed webhook delivery is tried again; later waits grow from it (§12). */
  WEBHOOK_RETRY_BASE_MS: milliseconds.default(10_000),
  /** How long a receiver has to answer a delivery; §12 gives it 10 s. */
  WEBHOOK_TIMEOUT_MS: milliseconds.default(10_000),
  /** How often each process looks for webhook deliveries that came due (a new event starts one at once). */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /**
   * Who sends webhook deliveries: `here`, a child process of this one's, at a low priority; `worker`, processes
   * started with `npm run webhooks:worker` (PostgreSQL only), so that a busy site's deliveries use other CPUs.
   */
  WEBHOOK_DELIVERY: z.enum(['here', 'worker']).default('here'),
  /**
   * The priority of the delivery process's threads (`WEBHOOK_DELIVERY=here`): `idle`, the scheduling class
   * SCHED_IDLE (Linux), so that they give way at once to any other thread that wakes; or a nice value
   * (0–19), which only lowers their share of a busy CPU. The name is the one it had when they were a thread.
   */
  WEBHOOK_THREAD_NICE: z.union([z.literal('idle'), z.coerce.number().int().min(0).max(19)]).default('idle'),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** SQLite's `synchronous` pragma; PostgreSQL keeps its own `synchronous_commit`. */
  sqliteSynchronous: 'normal' | 'full';
  /** SQLite's checkpoints: how often, and the log's size past which it is made to start over. */
  sqliteCheckpoint: { everyMs: number; walLimitBytes: number };
  databaseSchema: string | undefined;
  redisUrl: string | undefined;
  redisPrefix: string;
  adminUsername: string;
  adminPassword: string | undefined;
  /** Absolute base for embed codes and links; derived from host and port when unset. */
  publicUrl: string | undefined;
  /** IANA zone of the site's days (date filters, today's figures); the server's own zone by default. */
  siteTimeZone: string;
  tokenTtlSeconds: number;
  refreshTtlSeconds: number;
  loginLimits: LoginLimits;
  /** Admins must set up two-factor sign-in before anything else. */
  requireAdminMfa: boolean;
  mfaTicketTtlSeconds: number;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  /** Whom to believe about the client's address (X-Forwarded-For); nobody by default. */
  trustProxy: TrustProxy;
  consoleDir: string;
  widgetDir: string;
  rateLimits: LimitTable;
  timeouts: { headersMs: number; requestMs: number; keepAliveMs: number; idleMs: number };
  maxConnectionsPerAddress: number;
  maxVisitorSocketsPerAddress: number;
  maxAgentSocketsPerAddress: number;
  /** CSV exports running at once, per agent and per process. */
  exportLimits: { perAgent: number; perProcess: number };
  /** Opens `GET /metrics` beyond loopback to whoever sends it as a bearer token. */
  metricsToken: string | undefined;
  /** The key sealing the database's secrets; a key file in DATA_DIR when unset. */
  secretKey: string | undefined;
  /** Entries of OUTBOUND_ALLOW: hosts and CIDRs exempt from the outbound guard's address rule. */
  outboundAllow: string[];
  /**
   * ROBOT_SEMANTIC=on: the built-in English sentence model matches the robot's questions by meaning. Off by
   * default: on the held-out set it answered English questions wrong more often than right (bench/README.md).
   */
  robotSemantic: boolean;
  socketIdleMs: number;
  presenceGraceMs: number;
  timerPollMs: number;
  searchIndexMs: number;
  shutdownTimeoutMs: number;
  uploads: UploadLimits;
  siteLanguage: 'zh' | 'en';
  mail: MailConfig;
  wechat: WeChatConfig;
  webhooks: WebhookConfig;
}

export interface WebhookConfig {
  retryBaseMs: number;
  timeoutMs: number;
  pollMs: number;
  delivery: 'here' | 'worker';
  deliveryPriority: ThreadPriority;
}

export interface WeChatConfig {
  apiBase: string;
  timeoutMs: number;
  retryMs: number;
  pollMs: number;
  pushMaxAgeMs: number;
  typingMs: number;
}

export interface LoginLimits {
  /** Failures per account from one address, and per address, within the window: beyond, 429. */
  perAccount: number;
  perAddress: number;
  windowSeconds: number;
  /** Failures per account from all addresses within the window: beyond, each attempt waits. */
  perUser: number;
  /** The first wait, doubled at each attempt after it, up to the last. */
  delaySeconds: number;
  maxDelaySeconds: number;
}

export interface MailConfig {
  /** Unset: no mail is sent. */
  smtpUrl: string | undefined;
  from: string | undefined;
  letterTo: string[];
  /** Seconds a transcript address's confirmation link stays valid. */
  transcriptConfirmSeconds: number;
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
  let rateLimits: LimitTable;
  try {
    rateLimits = limitTable(e.RATE_LIMITS);
  } catch (error) {
    throw new ConfigError(`invalid configuration: ${error instanceof Error ? error.message : String(error)}`);
  }
  const outboundAllow = (e.OUTBOUND_ALLOW ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  try {
    parseOutboundAllow(outboundAllow);
  } catch {
    throw new ConfigError(`invalid configuration: OUTBOUND_ALLOW: "${e.OUTBOUND_ALLOW}" is not a list of hosts, addresses and CIDRs`);
  }
  // A SQLite data directory serves one process: a worker of its own could never open it.
  if (e.WEBHOOK_DELIVERY === 'worker' && !e.DATABASE_URL)
    throw new ConfigError(
      'invalid configuration: WEBHOOK_DELIVERY=worker needs DATABASE_URL (PostgreSQL); with SQLite the server delivers itself',
    );
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    sqliteSynchronous: e.SQLITE_SYNCHRONOUS,
    sqliteCheckpoint: { everyMs: e.SQLITE_CHECKPOINT_MS, walLimitBytes: e.SQLITE_WAL_LIMIT_MB * 1024 * 1024 },
    databaseSchema: e.DATABASE_SCHEMA,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    adminUsername: e.ADMIN_USERNAME,
    adminPassword: e.ADMIN_PASSWORD,
    publicUrl: e.PUBLIC_URL?.replace(/\/$/, ''),
    siteTimeZone: e.SITE_TIMEZONE ?? serverTimeZone(),
    tokenTtlSeconds: e.TOKEN_TTL,
    refreshTtlSeconds: e.REFRESH_TTL,
    loginLimits: {
      perAccount: e.LOGIN_FAILURES_PER_ACCOUNT,
      perAddress: e.LOGIN_FAILURES_PER_ADDRESS,
      windowSeconds: e.LOGIN_WINDOW,
      perUser: e.LOGIN_ACCOUNT_FAILURES,
      delaySeconds: e.LOGIN_ACCOUNT_DELAY,
      maxDelaySeconds: Math.max(e.LOGIN_ACCOUNT_DELAY, e.LOGIN_ACCOUNT_DELAY_MAX),
    },
    requireAdminMfa: e.REQUIRE_ADMIN_MFA === '1' || e.REQUIRE_ADMIN_MFA === 'true',
    mfaTicketTtlSeconds: e.MFA_TICKET_TTL,
    logLevel: e.LOG_LEVEL,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    consoleDir: resolve(e.CONSOLE_DIR ?? `${appRoot}/apps/console/dist`),
    widgetDir: resolve(e.WIDGET_DIR ?? `${appRoot}/apps/widget/dist`),
    rateLimits,
    timeouts: {
      headersMs: e.HEADERS_TIMEOUT_MS,
      requestMs: e.REQUEST_TIMEOUT_MS,
      keepAliveMs: e.KEEP_ALIVE_TIMEOUT_MS,
      idleMs: e.IDLE_TIMEOUT_MS,
    },
    maxConnectionsPerAddress: e.MAX_CONNECTIONS_PER_ADDRESS,
    maxVisitorSocketsPerAddress: e.MAX_VISITOR_SOCKETS_PER_ADDRESS,
    maxAgentSocketsPerAddress: e.MAX_AGENT_SOCKETS_PER_ADDRESS,
    exportLimits: { perAgent: e.EXPORT_MAX_PER_AGENT, perProcess: e.EXPORT_MAX_PER_PROCESS },
    metricsToken: e.METRICS_TOKEN,
    secretKey: e.SECRET_KEY,
    outboundAllow,
    robotSemantic: e.ROBOT_SEMANTIC === 'on',
    socketIdleMs: e.SOCKET_IDLE_MS,
    presenceGraceMs: e.PRESENCE_GRACE_MS,
    timerPollMs: e.TIMER_POLL_MS,
    searchIndexMs: e.SEARCH_INDEX_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    uploads: {
      visitorDailyBytes: e.UPLOAD_VISITOR_DAILY_BYTES,
      addressDailyBytes: e.UPLOAD_ADDRESS_DAILY_BYTES,
      totalBytes: e.UPLOAD_TOTAL_BYTES,
      minFreeBytes: e.UPLOAD_MIN_FREE_BYTES,
      sweepIntervalMs: e.UPLOAD_SWEEP_INTERVAL * 1000,
      sweepGraceMs: e.UPLOAD_SWEEP_GRACE * 1000,
    },
    siteLanguage: e.SITE_LANGUAGE,
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, letterTo: e.LETTER_MAIL_TO ?? [], transcriptConfirmSeconds: e.TRANSCRIPT_CONFIRM_TTL },
    wechat: {
      apiBase: e.WECHAT_API_BASE.replace(/\/$/, ''),
      timeoutMs: e.WECHAT_TIMEOUT_MS,
      retryMs: e.WECHAT_RETRY_MS,
      pollMs: e.WECHAT_POLL_MS,
      pushMaxAgeMs: e.WECHAT_PUSH_MAX_AGE_S * 1000,
      typingMs: e.WECHAT_TYPING_MS,
    },
    webhooks: {
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      pollMs: e.WEBHOOK_POLL_MS,
      delivery: e.WEBHOOK_DELIVERY,
      deliveryPriority: e.WEBHOOK_THREAD_NICE,
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
