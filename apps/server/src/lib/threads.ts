import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a thread whose program is a module of `src/lib` (`name`, without extension). The bundle has it
 * built beside itself (`dist/<name>.js`, an entry of `build.mjs`); under test the server runs from its
 * TypeScript sources, which a thread cannot load, so the module is bundled here with the build's own
 * esbuild and evaluated. Either way the thread runs the very code the sources hold, dependencies inside.
 */
export function startThread(name: string, options: Pick<WorkerOptions, 'workerData'> = {}): Worker {
  const built = new URL(`./${name}.js`, import.meta.url);
  if (existsSync(built)) return new Worker(built, options);
  const source = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  // Only from the sources: esbuild is a build tool, not a dependency of the bundle.
  const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const [program] = buildSync({
    entryPoints: [source],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  }).outputFiles;
  if (!program) throw new Error(`the thread program ${name} could not be built`);
  return new Worker(program.text, { ...options, eval: true });
}
