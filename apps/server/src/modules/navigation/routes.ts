import type { AccessHolder } from '@parley/protocol';
import { BUSINESS_ROUTES, can, joinPath, type Notice, ROUTE_TITLES, type RouteRecord, type SearchSuggestion } from '@parley/protocol';
import type { DefineRoute } from '../../lib/http.js';
import { type Lang, translate } from '../../lib/i18n.js';
import type { AgentRepository } from '../agents/repository.js';

/** The route tree pruned to what this user may open; a parent left with no child goes too. */
export function routesFor(holder: AccessHolder, routes: RouteRecord[] = BUSINESS_ROUTES): RouteRecord[] {
  const kept: RouteRecord[] = [];
  for (const route of routes) {
    if (!can(holder, route.meta?.guard)) continue;
    if (route.children) {
      const children = routesFor(holder, route.children);
      if (children.length === 0) continue;
      kept.push({ ...route, children });
    } else {
      kept.push(route);
    }
  }
  return kept;
}

/** Menu entries (visible leaves) with their full path and title in one language. */
function menuEntries(routes: RouteRecord[], lang: Lang, parent = ''): SearchSuggestion[] {
  return routes.flatMap((route) => {
    const path = joinPath(parent, route.path);
    if (route.meta?.hidden) return [];
    if (route.children) return menuEntries(route.children, lang, path);
    const title = route.meta ? (ROUTE_TITLES[route.meta.title]?.[lang] ?? route.meta.title) : route.name;
    return [{ value: title, url: `#${path}` }];
  });
}

export function navigationRoutes(
  route: DefineRoute,
  agents: AgentRepository,
  letters: { unread(): Promise<{ count: number; latest: string | null }> },
  notices: { list(holder: { agentId: number; roles: string[]; permissions: string[] }, lang: Lang): Promise<Notice[]> },
): void {
  route('GET /api/router/getList', { access: 'agent', handler: ({ auth }) => ({ list: routesFor(auth) }) });

  route('GET /api/search/getList', {
    access: 'agent',
    handler({ auth, query, lang }) {
      const keyword = query.keyword.toLowerCase();
      const entries = menuEntries(routesFor(auth), lang);
      const seen = new Set<string>();
      const list = entries.filter((entry) => {
        if (seen.has(entry.url)) return false;
        seen.add(entry.url);
        return entry.value.toLowerCase().includes(keyword) || entry.url.toLowerCase().includes(keyword);
      });
      return { list };
    },
  });

  route('GET /api/notice/getList', {
    access: 'agent',
    async handler({ auth, lang }) {
      const list: Notice[] = [];
      if (can(auth, { permission: ['seePermissions:seeHistorical'] })) {
        const unread = await letters.unread();
        if (unread.count > 0 && unread.latest) {
          list.push({
            id: 'letters',
            kind: 'letter',
            title: translate(lang, 'noticeLettersTitle'),
            notice: translate(lang, 'noticeLetters', { count: unread.count }),
            url: '#/history/letter',
            created_at: unread.latest,
          });
        }
      }
      if (can(auth, { permission: ['setPermissions:service'] })) {
        const pending = await agents.countPending();
        if (pending.count > 0 && pending.latest) {
          list.push({
            id: 'registrations',
            kind: 'registration',
            title: translate(lang, 'noticeRegistrationsTitle'),
            notice: translate(lang, 'noticeRegistrations', { count: pending.count }),
            url: '#/service/service',
            created_at: pending.latest,
          });
        }
      }
      list.push(...(await notices.list(auth, lang)));
      return { list, total: list.length };
    },
  });
}
