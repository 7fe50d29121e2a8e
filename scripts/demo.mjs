// `npm run demo [-- --scale <n>]`: builds the server if needed, then fills the configured database
// (DATA_DIR's SQLite, or DATABASE_URL's PostgreSQL) with a demo year; see apps/server/src/demo.ts.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
await import(new URL('../apps/server/dist/demo.js', import.meta.url).href);
