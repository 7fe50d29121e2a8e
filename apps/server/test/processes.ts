import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { APP_ROOT, backends } from './harness.js';

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process printed so far, both streams. */
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Runs the server as a process of its own (`script` is `scripts/start.mjs` as `npm start` runs it, or
 * the built `apps/server/dist/main.js`), on `dataDir` and, in the PostgreSQL run, on `schema`; resolves
 * on the line that names the real URL.
 */
export function spawnServer(script: string, dataDir: string, schema: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return spawnProcess('server', script, dataDir, schema, env, /listening on (http:\/\/[\d.]+:\d+)/);
}

/** Runs the webhook worker (`npm run webhooks:worker`, the built bundle) beside servers on `schema`; resolves once it delivers. */
export function spawnWebhookWorker(dataDir: string, schema: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return spawnProcess('webhook worker', 'apps/server/dist/webhook-worker.js', dataDir, schema, env, /webhook worker delivering/);
}

/** Spawns a built entry and resolves when its output matches `ready` (a server's URL, its first group, is `url`). */
function spawnProcess(
  name: string,
  script: string,
  dataDir: string,
  schema: string,
  env: Record<string, string>,
  ready: RegExp,
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [script], {
    cwd: APP_ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      PORT: '0',
      ...(backends.postgres ? { DATABASE_URL: backends.postgres, DATABASE_SCHEMA: schema } : {}),
      ...(backends.redis ? { REDIS_URL: backends.redis, REDIS_PREFIX: `parley-${schema}` } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line from the ${name} in time:\n${text}`)), 150_000);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${text}`));
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const match = ready.exec(text);
      if (!match) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({
        child,
        url: match[1] ?? '',
        output: () => text,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done(child.exitCode);
            child.once('exit', (code) => done(code));
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

export async function dropSchema(schema: string): Promise<void> {
  if (!backends.postgres) return;
  const client = new pg.Client({ connectionString: backends.postgres });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

/**
 * Builds the server bundle when it is missing or older than its sources, before a test spawns it: `npm
 * test` builds everything first, but a lone run of one file must not test an old build. A failed build
 * fails the test rather than letting it run the previous bundle.
 */
export async function buildOnce(): Promise<void> {
  const built = spawn(process.execPath, ['scripts/build.mjs', '@parley/server'], { cwd: APP_ROOT, stdio: 'inherit' });
  const code = await new Promise<number | null>((resolve) => built.once('exit', resolve));
  if (code !== 0) throw new Error(`the server bundle could not be built (exit ${code})`);
}

/**
 * The fields of a `/proc/…/stat` file (a process's or a thread's) from the third on, its state first: the
 * second, the command's name in brackets, may hold spaces, so the fields are read after its last bracket.
 */
export function procStat(file: string): string[] {
  const stat = readFileSync(file, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Whether process `pid` runs (Linux's `/proc`); a process ended but not yet reaped is not running. */
export function running(pid: number): boolean {
  try {
    return procStat(`/proc/${pid}/stat`)[0] !== 'Z';
  } catch {
    return false;
  }
}
