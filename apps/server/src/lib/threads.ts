import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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
  const built = new URL(`./${name}.js`, import.meta.url);
  if (existsSync(built)) return new Worker(built, options);
  return new Worker(bundledFromSources(name), options);
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
