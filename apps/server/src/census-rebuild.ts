import { loadConfig } from './config.js';
import { migrate, openStorage } from './db/index.js';
import { rebuildCensusDays } from './modules/census/rebuild.js';

/** `npm run census:rebuild`: counts the statistics' daily rollup again from the raw tables of the configured database. */
const config = loadConfig(process.env, new URL('../../..', import.meta.url).pathname);
const storage = await openStorage(config);
await migrate(storage);
const { zone, ms } = await rebuildCensusDays(storage, config.siteTimeZone);
process.stdout.write(`Statistics' daily rollup rebuilt for ${zone} in ${ms} ms.\n`);
await storage.close();
