import { can, type HomeOverview } from '@parley/protocol';
import type { DefineRoute } from '../../lib/http.js';
import { dayBounds, dayOf } from '../../lib/time.js';
import { AgentPresenceStore } from '../../realtime/presence.js';
import type { HomeRepository } from './repository.js';

/** The home page's figures in one call; a figure of a page the caller may not open is left out. */
export function homeRoutes(route: DefineRoute, repo: HomeRepository, timeZone: () => string, now: () => number): void {
  route('GET /api/home/overview', {
    access: 'agent',
    async handler({ auth }): Promise<HomeOverview> {
      const zone = timeZone();
      const day = dayOf(now(), zone);
      const today = dayBounds(day, zone);
      const [live, agents, signIns] = await Promise.all([
        repo.liveFigures(today),
        can(auth, { permission: ['setPermissions:service'] }) ? repo.agentFigures(AgentPresenceStore.freshSince()) : undefined,
        can(auth, { permission: ['seePermissions:seeLoginRecord'] }) ? repo.signInFigures(today) : undefined,
      ]);
      return { day, ...live, ...agents, ...signIns };
    },
  });
}
