// Fails when a package that runs in production (server, or bundled into the console and widget) carries a
// copyleft licence, or one this script cannot classify and LICENSE_EXCEPTIONS does not explain.
import { fileURLToPath } from 'node:url';
import { classifyLicense, installedPackages, LICENSE_EXCEPTIONS, licenseOf } from './dependencies.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const problems = [];
const packages = installedPackages(root, { production: true });
for (const { path, name, version, manifest } of packages) {
  const license = licenseOf(manifest);
  const verdict = classifyLicense(license);
  if (verdict === 'permissive') continue;
  const exception = LICENSE_EXCEPTIONS[name];
  if (verdict === 'unknown' && exception && exception.license === license) continue;
  problems.push(`${name}@${version} (${path}): ${license ?? 'no licence field'} is ${verdict}`);
}
if (problems.length > 0) {
  process.stderr.write(`Runtime dependencies with a licence we cannot ship:\n  ${problems.join('\n  ')}\n`);
  process.exit(1);
}
process.stdout.write(`licences ok: ${packages.length} runtime packages, all permissive\n`);
