import type { Storage } from '../../db/index.js';
import { dayOf } from '../../lib/time.js';
import { CensusRepository } from './repository.js';

/** The site's zone as the settings hold it, else the configured one (what SettingsService answers). */
async function siteZone(storage: Storage, configured: string): Promise<string> {
  const row = await storage.db.selectFrom('settings').select('value').where('page', '=', 'softwareSetting').executeTakeFirst();
  try {
    const zone = row ? (JSON.parse(row.value) as { timezone?: unknown }).timezone : undefined;
    return typeof zone === 'string' && zone ? zone : configured;
  } catch {
    return configured;
  }
}

/**
 * Empties the statistics' daily rollup and its monthly sums and counts them again from the raw tables, for
 * the closed days the statistics can ask for (a range of a year and the year before it). Run after rows
 * were written around the server (an import, the demo) or to check the rollup against the raw tables.
 */
export async function rebuildCensusDays(storage: Storage, configuredZone: string, now = Date.now()): Promise<{ zone: string; ms: number }> {
  const started = performance.now();
  const zone = await siteZone(storage, configuredZone);
  // The day before today on the site's calendar.
  const lastClosed = new Date(Date.parse(`${dayOf(now, zone)}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  await new CensusRepository(storage.db, storage.dialect).rebuildDays(zone, lastClosed);
  return { zone, ms: Math.round(performance.now() - started) };
}
