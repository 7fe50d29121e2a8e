import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { Migrator } from 'kysely';
import { buildApp } from '../src/app.js';
import { type Config, loadConfig } from '../src/config.js';
import { migrate, openStorage, type StatementListener, type Storage } from '../src/db/index.js';
import { migrations } from '../src/db/migrations/index.js';
import { seed } from '../src/db/seed.js';
import { type Bus, LocalBus, RedisBus } from '../src/realtime/bus.js';
import { dropSchema } from './processes.js';
import { checkResponse } from './response-contract.js';

export const APP_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const ADMIN = { username: 'admin', password: 'admin-pass-1' };

/** Which backing services this run uses: SQLite and the in-process bus unless the CI variables say otherwise. */
export const backends = {
  postgres: process.env.TEST_DATABASE_URL || undefined,
  redis: process.env.TEST_REDIS_URL || undefined,
};

export interface ApiResponse<T = unknown> {
  status: number;
  body: { code: number; msg: string; data: T };
  headers: Headers;
}

export interface RequestOptions {
  token?: string | undefined;
  body?: unknown;
  lang?: 'zh' | 'en';
  headers?: Record<string, string>;
}

export interface TestServer {
  url: string;
  app: FastifyInstance;
  config: Config;
  storage: Storage;
  bus: Bus;
  /** What the server logged at `LOG_LEVEL` (silent unless the test's env sets it), oldest first. */
  logs: Record<string, unknown>[];
  get<T = unknown>(path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  post<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse<T>>;
  login(username?: string, password?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Builds the real app on a fresh database (SQLite file in a temporary DATA_DIR, or a PostgreSQL schema of
 * its own) and listens on a free port: tests talk to it over real HTTP and real sockets. `beforeMigrate`
 * may bring the fresh database to an earlier migration and fill it, to test a migration on real data;
 * `now` fixes the clock that decides the site's "today"; `authNow` is the clock of token lifetimes and the
 * failed-login window (a `ManualClock`'s `now`, to pass a TTL without waiting for it).
 */
export async function startTestServer(
  env: Record<string, string> = {},
  options: {
    beforeMigrate?: (storage: Storage) => Promise<void>;
    now?: () => number;
    authNow?: () => number;
    onStatement?: StatementListener;
  } = {},
): Promise<TestServer> {
  const fresh = await freshStorage({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env }, options);
  const { config, storage } = fresh;
  const bus: Bus = config.redisUrl ? await RedisBus.connect(config.redisUrl, config.redisPrefix) : new LocalBus();
  const logs: Record<string, unknown>[] = [];
  const logStream = { write: (line: string) => logs.push(JSON.parse(line)) };
  const app = await buildApp({
    config,
    storage,
    bus,
    logStream,
    ...(options.now ? { now: options.now } : {}),
    ...(options.authNow ? { authNow: options.authNow } : {}),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (typeof address !== 'object' || !address) throw new Error('no address');
  const url = `http://127.0.0.1:${address.port}`;

  async function request<T>(method: 'GET' | 'POST', path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { 'accept-language': options.lang ?? 'en', ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let payload: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    const response = await fetch(url + path, { method, headers, body: payload });
    const text = await response.text();
    let body: ApiResponse<T>['body'];
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`${method} ${path} answered ${response.status} with non-JSON: ${text.slice(0, 200)}`);
    }
    if (response.status === 200 && body.code === 200) checkResponse(method, path, body.data);
    return { status: response.status, body, headers: response.headers };
  }

  const server: TestServer = {
    url,
    app,
    config,
    storage,
    bus,
    logs,
    get: (path, options) => request('GET', path, options),
    post: (path, body, options) => request('POST', path, { ...options, body }),
    async login(username = ADMIN.username, password = ADMIN.password) {
      const response = await request<{ token: string }>('POST', '/api/login', { body: { username, password } });
      if (response.status !== 200) throw new Error(`login as ${username} failed: ${response.body.msg}`);
      return response.body.data.token;
    },
    async close() {
      await app.close();
      await bus.close();
      await storage.close();
      await fresh.remove();
    },
  };
  return server;
}

/** A database of a test's own, as `freshStorage` leaves it. */
export interface FreshStorage {
  config: Config;
  storage: Storage;
  /** Its DATA_DIR, and its PostgreSQL schema when `backends.postgres` is set: a server spawned on it uses both. */
  dataDir: string;
  schema: string;
  /** Drops the schema and deletes the DATA_DIR (the storage closed first). */
  remove(): Promise<void>;
}

/**
 * A fresh database, migrated and with its administrator: a SQLite file in a temporary DATA_DIR, or a
 * PostgreSQL schema of its own (and a Redis prefix of its own for a server on it). `env` adds to the
 * configuration; `beforeMigrate` may bring the database to an earlier migration and fill it first.
 */
export async function freshStorage(
  env: Record<string, string> = {},
  options: { beforeMigrate?: (storage: Storage) => Promise<void>; onStatement?: StatementListener } = {},
): Promise<FreshStorage> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-test-'));
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      ...(backends.postgres ? { DATABASE_URL: backends.postgres, DATABASE_SCHEMA: schema } : {}),
      ...(backends.redis ? { REDIS_URL: backends.redis, REDIS_PREFIX: `parley-test-${schema}` } : {}),
      ...env,
    },
    APP_ROOT,
  );
  const storage = await openStorage(config, options.onStatement);
  await options.beforeMigrate?.(storage);
  await migrate(storage);
  await seed(storage.db, config.adminUsername, config.adminPassword);
  return {
    config,
    storage,
    dataDir,
    schema,
    async remove() {
      await dropSchema(schema);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Saves `values` into a settings page through the API, the page's other values as they are stored. */
export async function configure(server: TestServer, token: string, page: string, values: Record<string, unknown>): Promise<void> {
  const current = await server.get<Record<string, unknown>>(`/api/settings/${page}`, { token });
  const saved = await server.post(`/api/settings/${page}`, { ...current.body.data, ...values }, { token });
  if (saved.status !== 200) throw new Error(`saving ${page} answered ${saved.status}: ${saved.body.msg}`);
}

/** Creates an agent through the API as the administrator and returns its id and a logged-in token. */
export async function createAgent(
  server: TestServer,
  adminToken: string,
  options: { username: string; password?: string; role?: string; disabled?: boolean },
): Promise<{ id: number; token: string | undefined }> {
  const roles = await server.get<{ list: { id: number; name: string }[] }>('/api/role/getList', { token: adminToken });
  const role = roles.body.data.list.find((item) => item.name === (options.role ?? 'Agent'));
  if (!role) throw new Error(`no role ${options.role}`);
  const password = options.password ?? 'agent-pass-1';
  const created = await server.post<{ id: number }>(
    '/api/service/doEdit',
    { username: options.username, nickname: options.username, password, roleId: role.id, disabled: options.disabled ?? false },
    { token: adminToken },
  );
  if (created.status !== 200) throw new Error(`creating ${options.username} failed: ${created.body.msg}`);
  const token = options.disabled ? undefined : await server.login(options.username, password);
  return { id: created.body.data.id, token };
}

/** Real time plus whatever a test has skipped: a TTL passes at once, and nothing else is frozen. */
export interface ManualClock {
  now(): number;
  advance(ms: number): void;
}

export function manualClock(): ManualClock {
  let skipped = 0;
  return {
    now: () => Date.now() + skipped,
    advance(ms) {
      skipped += ms;
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Migrates the storage up to and including `name`, as an earlier version left it (for `beforeMigrate`). */
export async function migrateTo(storage: Storage, name: string): Promise<void> {
  const migrator = new Migrator({
    db: storage.db,
    provider: { getMigrations: async () => migrations(storage.dialect) },
    ...(storage.schema ? { migrationTableSchema: storage.schema } : {}),
  });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error;
}
