// Fails when an installed package's `engines.node` excludes the Node versions package.json promises
// (npm would warn with EBADENGINE on install, and the package may use what the promised Node lacks).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { enginesAllow, installedPackages } from './dependencies.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const projectRange = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node;
const problems = [];
const packages = installedPackages(root);
for (const { path, name, version, manifest } of packages) {
  const wanted = manifest.engines?.node;
  if (typeof wanted === 'string' && !enginesAllow(wanted, projectRange)) {
    problems.push(`${name}@${version} (${path}) requires Node ${wanted}`);
  }
}
if (problems.length > 0) {
  process.stderr.write(`Installed packages that do not run on Node ${projectRange}:\n  ${problems.join('\n  ')}\n`);
  process.exit(1);
}
process.stdout.write(`engines ok: ${packages.length} installed packages accept Node ${projectRange}\n`);
