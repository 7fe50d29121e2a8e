import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUSINESS_ROUTES, ROUTE_TITLES, type RouteRecord } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import en from './en.json';
import zh from './zh.json';

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Record<string, string> {
  return Object.entries(tree).reduce<Record<string, string>>((out, [key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out[path] = value;
    else Object.assign(out, flatten(value, path));
    return out;
  }, {});
}

const zhKeys = flatten(zh as Tree);
const enKeys = flatten(en as Tree);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry) && !entry.includes('.test.') ? [path] : [];
  });
}

describe('locales', () => {
  it('zh and en have exactly the same keys, none empty', () => {
    expect(Object.keys(enKeys).sort()).toEqual(Object.keys(zhKeys).sort());
    for (const [key, value] of [...Object.entries(zhKeys), ...Object.entries(enKeys)]) expect(value.trim(), key).not.toBe('');
  });

  it('keep the same interpolation variables in both languages', () => {
    const vars = (text: string) => (text.match(/{{\s*\w+\s*}}/g) ?? []).sort();
    for (const key of Object.keys(zhKeys)) expect(vars(enKeys[key] ?? ''), key).toEqual(vars(zhKeys[key] ?? ''));
  });

  it('every literal key used in the source exists in both languages', () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const used = new Set<string>();
    for (const file of sources(root)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\bt\(\s*'([\w.-]+)'/g)) if (match[1]) used.add(match[1]);
    }
    expect(used.size).toBeGreaterThan(50);
    for (const key of used) {
      expect(zhKeys[key], `zh: ${key}`).toBeDefined();
      expect(enKeys[key], `en: ${key}`).toBeDefined();
    }
  });

  it('every key handed over as data (list field labels, options, hints) exists in both languages', () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const namespaces = Object.keys(zh);
    const used = new Set<string>();
    for (const file of sources(root)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/'([a-zA-Z]+)\.([\w.-]+)'/g))
        if (match[1] && namespaces.includes(match[1]) && !match[2]?.endsWith('.')) used.add(`${match[1]}.${match[2]}`);
    }
    for (const key of used) {
      expect(zhKeys[key], `zh: ${key}`).toBeDefined();
      expect(enKeys[key], `en: ${key}`).toBeDefined();
    }
  });

  it('every route title has both languages', () => {
    const titles = new Set<string>();
    const visit = (routes: RouteRecord[]) => {
      for (const route of routes) {
        if (route.meta) titles.add(route.meta.title);
        visit(route.children ?? []);
      }
    };
    visit(BUSINESS_ROUTES);
    for (const title of [...titles, 'login', 'register', 'authLogin', 'callback', 'forbidden', 'notFound']) {
      expect(ROUTE_TITLES[title]?.zh, title).toBeTruthy();
      expect(ROUTE_TITLES[title]?.en, title).toBeTruthy();
    }
  });
});
