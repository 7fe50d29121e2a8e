// `tsc --noEmit` over every workspace that has a tsconfig.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const projects = ['packages/protocol', 'apps/server', 'apps/console', 'apps/widget', 'e2e'].filter((dir) =>
  existsSync(`${root}/${dir}/tsconfig.json`),
);
let failed = false;
for (const project of projects) {
  const result = spawnSync('npx', ['tsc', '--noEmit', '-p', project], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) failed = true;
  else process.stdout.write(`types ok: ${project}\n`);
}
process.exit(failed ? 1 : 0);
