import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { classifyLicense, enginesAllow, licenseOf } from './dependencies.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('classifyLicense', () => {
  it.each([
    ['MIT', 'permissive'],
    ['ISC', 'permissive'],
    ['BlueOak-1.0.0', 'permissive'],
    ['(MIT OR WTFPL)', 'permissive'],
    ['(BSD-2-Clause OR MIT OR Apache-2.0)', 'permissive'],
    ['Apache-2.0 WITH LLVM-exception', 'permissive'],
    ['MPL-2.0', 'permissive'],
    ['GPL-3.0-only', 'copyleft'],
    ['GPL-2.0+', 'copyleft'],
    ['AGPL-3.0-or-later', 'copyleft'],
    ['LGPL-2.1', 'copyleft'],
    ['SSPL-1.0', 'copyleft'],
    ['EUPL-1.2', 'copyleft'],
    ['OSL-3.0', 'copyleft'],
    ['CC-BY-SA-4.0', 'copyleft'],
    ['(MIT OR GPL-3.0)', 'permissive'],
    ['(MIT AND GPL-3.0)', 'copyleft'],
    ['MIT AND (LGPL-2.1 OR BSD-3-Clause)', 'permissive'],
    ['SEE LICENSE IN LICENSE.txt', 'unknown'],
    ['UNLICENSED', 'unknown'],
    ['', 'unknown'],
    [undefined, 'unknown'],
  ])('%s is %s', (expression, verdict) => {
    expect(classifyLicense(expression)).toBe(verdict);
  });

  it('reads the old object and list forms of the licence field', () => {
    expect(licenseOf({ license: { type: 'MIT' } })).toBe('MIT');
    expect(licenseOf({ licenses: [{ type: 'MIT' }, { type: 'Apache-2.0' }] })).toBe('(MIT OR Apache-2.0)');
    expect(licenseOf({})).toBeUndefined();
  });
});

describe('enginesAllow', () => {
  it('accepts ranges that include the lowest promised Node and the running one', () => {
    expect(enginesAllow('>=18', '>=20.19', '20.20.2')).toBe(true);
    expect(enginesAllow('^20.19.0 || >=22.12.0', '>=20.19', '20.20.2')).toBe(true);
    expect(enginesAllow(undefined, '>=20.19', '20.20.2')).toBe(true);
  });
  it('refuses ranges that leave out Node 20', () => {
    expect(enginesAllow('>=22', '>=20.19', '20.20.2')).toBe(false);
    expect(enginesAllow('>=20.20', '>=20.19', '20.20.2')).toBe(false);
    expect(enginesAllow('^22 || ^24', '>=20.19', '24.1.0')).toBe(false);
  });
});

describe('the installed tree', () => {
  it.each(['check-licenses.mjs', 'check-engines.mjs'])('passes scripts/%s', (script) => {
    const result = spawnSync(process.execPath, [`scripts/${script}`], { cwd: root, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
