import { type ChildProcess, fork, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { threadId, Worker, type WorkerOptions } from 'node:worker_threads';

/** The thread programs built from the sources in this process, by name: each is bundled once. */
const bundled = new Map<string, string>();

/**
 * Starts a thread whose program is a module of `src/lib` or `src` (`name`, without extension). The bundle
 * has it built beside itself (`dist/<name>.js`, an entry of `build.mjs`); under test the server runs from
 * its TypeScript sources, which a thread cannot load, so the module is bundled here with the build's own
 * esbuild, its npm dependencies left to be loaded as the built one loads them. Either way the thread runs
 * the very code the sources hold.
 */
export function startThread(name: string, options: Pick<WorkerOptions, 'workerData'> = {}): Worker {
  return new Worker(programFile(name), options);
}

/**
 * Starts a program found as startThread finds it as a child process of this one, spoken to over its IPC
 * channel. Unlike a thread it shares nothing with this process's threads: not V8's helper threads (the
 * optimizing compiler's, the collector's), which a thread's isolate shares with the chat's at the
 * process's priority; so the whole of it can be lowered (lowerThisProcess). It runs with no Node options
 * of this process's; what it prints goes where this process's output goes.
 */
export function startProcess(name: string): ChildProcess {
  const file = programFile(name);
  return fork(typeof file === 'string' ? file : fileURLToPath(file), [], {
    execArgv: [],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

function programFile(name: string): URL | string {
  const built = new URL(`./${name}.js`, import.meta.url);
  return existsSync(built) ? built : bundledFromSources(name);
}

function bundledFromSources(name: string): string {
  const done = bundled.get(name);
  if (done) return done;
  const source = [new URL(`./${name}.ts`, import.meta.url), new URL(`../${name}.ts`, import.meta.url)]
    .map((url) => fileURLToPath(url))
    .find((path) => existsSync(path));
  if (!source) throw new Error(`no thread program ${name}`);
  const serverRoot = fileURLToPath(new URL('../..', import.meta.url));
  const pkg = JSON.parse(readFileSync(join(serverRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  // Only from the sources: esbuild is a build tool, not a dependency of the bundle.
  const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const [program] = buildSync({
    entryPoints: [source],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: Object.keys(pkg.dependencies).filter((dependency) => !dependency.startsWith('@parley/')),
  }).outputFiles;
  if (!program) throw new Error(`the thread program ${name} could not be built`);
  // Written inside the server's folder, so that its dependencies resolve from there as the built one's do;
  // one file per process and thread, since test files run side by side.
  const folder = join(serverRoot, 'node_modules', '.cache', 'parley-threads');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${name}-${process.pid}-${threadId}.mjs`);
  writeFileSync(file, program.text);
  process.once('exit', () => rmSync(file, { force: true }));
  bundled.set(name, file);
  return file;
}

/**
 * The priority of a background thread, or of every thread of a background process (Linux): `idle`, the
 * scheduling class SCHED_IDLE, under which a thread gives way at once to any other that wakes on its CPU;
 * or a nice value (0–19), which only lowers its share of a busy CPU, so a thread that wakes may still wait
 * behind it for the rest of its turn.
 */
export type ThreadPriority = 'idle' | number;

/**
 * Lowers every thread of the calling process (Linux) or the process (elsewhere) to `priority`; answers
 * what it runs at now (`undefined`: its own, where neither can be set). SCHED_IDLE is set with `chrt
 * --all-tasks`; a nice value, which on Linux belongs to a thread, on each thread in turn. Threads started
 * later take their priority from the thread that starts them, lowered too.
 */
export function lowerThisProcess(priority: ThreadPriority): { priority?: ThreadPriority } {
  if (process.platform !== 'linux') {
    try {
      setPriority(priority === 'idle' ? 19 : priority);
      return { priority: priority === 'idle' ? 19 : priority };
    } catch {
      return {};
    }
  }
  if (priority === 'idle') {
    const set = spawnSync('chrt', ['--all-tasks', '--idle', '--pid', '0', String(process.pid)], { stdio: 'ignore', timeout: 5000 });
    if (set.status === 0) return { priority };
  }
  const nice = priority === 'idle' ? 19 : priority;
  try {
    for (const task of readdirSync('/proc/self/task')) setPriority(Number(task), nice);
    return { priority: nice };
  } catch {
    return {};
  }
}
