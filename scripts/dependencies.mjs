// What the dependency checks share: the installed package tree as package-lock.json records it, a
// classifier of SPDX licence expressions, and a test of `engines.node` against the project's Node range.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

/** Licences whose terms would reach our own code or its users' deployments: never at run time. */
const COPYLEFT = [/^A?GPL/i, /^LGPL/i, /^SSPL/i, /^EUPL/i, /^OSL/i, /^CC-BY-SA/i, /^CC-BY-NC/i, /^CPAL/i, /^RPL/i, /^Sleepycat$/i];

/** Licences that ask for a notice at most. */
const PERMISSIVE = new Set(
  [
    'MIT',
    'MIT-0',
    'ISC',
    '0BSD',
    'BSD-2-Clause',
    'BSD-3-Clause',
    'Apache-2.0',
    'BlueOak-1.0.0',
    'Unlicense',
    'CC0-1.0',
    'CC-BY-3.0',
    'CC-BY-4.0',
    'Zlib',
    'Python-2.0',
    'WTFPL',
    'Artistic-2.0',
    // File-level copyleft only: changes to the licensed files themselves must be shared, and we ship them
    // unmodified; nothing of ours becomes MPL by using them.
    'MPL-2.0',
  ].map((id) => id.toLowerCase()),
);

/**
 * Packages whose licence the registry does not state in SPDX form, checked by hand; each with the reason.
 * Keyed by name, so a new version is looked at again only when its licence field changes.
 */
export const LICENSE_EXCEPTIONS = {};

/** `permissive`, `copyleft` or `unknown` for one SPDX expression (`OR` takes the best, `AND` the worst). */
export function classifyLicense(expression) {
  if (typeof expression !== 'string' || expression.trim() === '') return 'unknown';
  const tokens = expression.match(/\(|\)|[^\s()]+/g) ?? [];
  let position = 0;
  const rank = { permissive: 0, unknown: 1, copyleft: 2 };
  const worst = (a, b) => (rank[a] >= rank[b] ? a : b);
  const best = (a, b) => (rank[a] <= rank[b] ? a : b);

  function single(id) {
    const bare = id.replace(/\+$/, '');
    if (COPYLEFT.some((pattern) => pattern.test(bare))) return 'copyleft';
    return PERMISSIVE.has(bare.toLowerCase()) ? 'permissive' : 'unknown';
  }
  function primary() {
    const token = tokens[position++];
    if (token === undefined) return 'unknown';
    if (token === '(') {
      const inner = or();
      if (tokens[position] === ')') position++;
      return inner;
    }
    const result = single(token);
    // `WITH` adds an exception that only ever loosens the licence; the base licence decides.
    if (tokens[position]?.toUpperCase() === 'WITH') position += 2;
    return result;
  }
  function and() {
    let result = primary();
    while (tokens[position]?.toUpperCase() === 'AND') {
      position++;
      result = worst(result, primary());
    }
    return result;
  }
  function or() {
    let result = and();
    while (tokens[position]?.toUpperCase() === 'OR') {
      position++;
      result = best(result, and());
    }
    return result;
  }
  const result = or();
  return position === tokens.length ? result : 'unknown';
}

/** The licence field of a package.json: a string, or the old `{ type }` and `licenses: [...]` forms. */
export function licenseOf(manifest) {
  const { license, licenses } = manifest;
  if (typeof license === 'string') return license;
  if (license && typeof license.type === 'string') return license.type;
  if (Array.isArray(licenses) && licenses.length > 0) {
    const ids = licenses.map((item) => (typeof item === 'string' ? item : item?.type)).filter(Boolean);
    return ids.length > 1 ? `(${ids.join(' OR ')})` : ids[0];
  }
  return undefined;
}

/**
 * True when a package's `engines.node` accepts the lowest Node version of the project's range (what the
 * README promises) and the Node running now (what npm checks when it warns with EBADENGINE).
 */
export function enginesAllow(packageRange, projectRange, running = process.versions.node) {
  if (!packageRange) return true;
  const lowest = semver.minVersion(projectRange);
  if (!lowest) return false;
  const versions = semver.satisfies(running, projectRange) ? [lowest.version, running] : [lowest.version];
  return versions.every((version) => semver.satisfies(version, packageRange));
}

/**
 * The installed packages package-lock.json records, each with its installed manifest (optional
 * platform binaries that are not installed here are left out). `production` leaves dev-only ones out.
 */
export function installedPackages(root, { production = false } = {}) {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const found = [];
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (path === '' || entry.link) continue;
    if (production && entry.dev) continue;
    const manifestPath = join(root, path, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    found.push({ path, name: manifest.name ?? path, version: manifest.version ?? '', manifest });
  }
  return found;
}
