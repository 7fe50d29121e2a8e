// Bundles the server and the protocol package into one ES module; npm dependencies stay external.
// The options are exported for `npm run dev`, which watches with the very same settings.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const external = Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@parley/'));

/** @type {import('esbuild').BuildOptions} */
export const options = {
  // The demo filler, the rollup's rebuild and the webhook worker share the server's storage and migrations, so they are built beside it.
  // The programs of threads and child processes (outbound calls, webhook deliveries) are started from files of their own beside them (see src/lib/threads.ts).
  entryPoints: [
    ...['main', 'demo', 'census-rebuild', 'webhook-worker', 'webhook-delivery'].map((name) => ({ in: `./src/${name}.ts`, out: name })),
    { in: './src/lib/outbound-worker.ts', out: 'outbound-worker' },
  ].map((entry) => ({ ...entry, in: new URL(entry.in, import.meta.url).pathname })),
  outdir: new URL('./dist', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external,
  logLevel: 'warning',
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await build(options);
