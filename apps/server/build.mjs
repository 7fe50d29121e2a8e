// Bundles the server and the protocol package into one ES module; npm dependencies stay external.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const external = Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@parley/'));

await build({
  // The demo filler and the rollup's rebuild share the server's storage and migrations, so they are built beside it.
  entryPoints: ['./src/main.ts', './src/demo.ts', './src/census-rebuild.ts'].map((entry) => new URL(entry, import.meta.url).pathname),
  outdir: new URL('./dist', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external,
  logLevel: 'warning',
});
