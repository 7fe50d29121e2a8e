import { createRequire } from 'node:module';
import { ABROAD_REGION_CODE, type Region } from '@parley/protocol';
import type IP2Region from 'ip2region';
import { regionTree } from './tree.js';

export interface VisitorRegion {
  /** Readable: province and city in China, the country abroad, `LAN`/`localhost` for private addresses. */
  name: string;
  /** GB/T 2260 code of the city (or province) in China, the abroad pseudo-code, '' when unknown. */
  code: string;
}

const UNKNOWN: VisitorRegion = { name: '', code: '' };

// The database ships in the package; it is read into memory on the first public address only.
let searcher: IP2Region | undefined;

/** "广东省", "广西壮族自治区", "北京市" and "北京" all name the same thing once the suffix is gone. */
function shortName(name: string): string {
  return name.replace(/(省|市|特别行政区|壮族自治区|回族自治区|维吾尔自治区|自治区)$/, '');
}

function byName(nodes: Region[], name: string): Region | undefined {
  const wanted = shortName(name);
  return wanted ? nodes.find((node) => shortName(node.name) === wanted) : undefined;
}

/** The region of addresses that say so by themselves (private and loopback); '' for the rest. */
export function regionOf(ip: string): string {
  if (/^(127\.|::1$|::ffff:127\.)/.test(ip)) return 'localhost';
  if (/^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|fc|fd|::ffff:(10|192\.168)\.)/i.test(ip)) return 'LAN';
  return '';
}

/** A visitor's region from their address, offline, from the bundled ip2region database. */
export function lookUpRegion(ip: string): VisitorRegion {
  const local = regionOf(ip);
  if (local) return { name: local, code: '' };
  const address = ip.startsWith('::ffff:') ? ip.slice('::ffff:'.length) : ip;
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(address)) return UNKNOWN;
  if (!searcher) {
    // A CommonJS package whose class is its `default` export: required, so that Node and the test runner agree.
    const { default: Searcher } = createRequire(import.meta.url)('ip2region') as typeof import('ip2region');
    searcher = new Searcher({ disableIpv6: true });
  }
  const found = searcher.search(address);
  if (!found?.country) return UNKNOWN;
  if (found.country !== '中国') return { name: found.country, code: ABROAD_REGION_CODE };
  const province = byName(regionTree(), found.province);
  if (!province) return { name: found.province || found.country, code: '' };
  const city = province.provinceLevelCity ? undefined : byName(province.children, found.city);
  return { name: city ? `${province.name}${city.name}` : province.name, code: city?.code ?? province.code };
}
