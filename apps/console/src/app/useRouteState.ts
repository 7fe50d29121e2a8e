import type { RouteRecord } from '@parley/protocol';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useLocation } from 'react-router';
import { useAccess } from '../lib/access';
import { call } from '../lib/api';
import { HttpError } from '../lib/http';
import { i18n } from '../lib/i18n';
import { settings } from '../lib/settings';
import { useRoutes } from '../stores/routes';
import { useBusinessRoutes } from './businessRoutes';
import { type AppRoute, activeMenuKey, buildMenu, changeMenuMeta, filterRoutes, findChain, type MenuNode } from './routeTree';

export interface RouteState {
  /** Business routes this user may open. */
  routes: AppRoute[];
  menu: MenuNode[];
  chain: AppRoute[];
  leaf: AppRoute | undefined;
  /** The top-level route of the current page. */
  top: AppRoute | undefined;
  activeKey: string;
}

/** Menu, matched chain and active key of the current page, for the signed-in user. */
/** In 'all' authentication mode the route list comes from the server (seed §2); it must be an array. */
function useServerRoutes(attach: (records: RouteRecord[]) => AppRoute[]): AppRoute[] | undefined {
  const { data } = useQuery({
    queryKey: ['router', 'list'],
    enabled: settings.authentication === 'all',
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async () => {
      // Checked, not trusted: a route list of the wrong shape is an error page, not a crash.
      const answer: { list?: unknown } = await call('GET /api/router/getList');
      if (!Array.isArray(answer?.list)) throw new HttpError(500, i18n.t('errors.routeFormat'));
      return attach(answer.list as RouteRecord[]);
    },
  });
  return data;
}

const NO_ROUTES: AppRoute[] = [];

export function useRouteState(): RouteState {
  const holder = useAccess();
  const { pathname } = useLocation();
  const business = useBusinessRoutes();
  const serverRoutes = useServerRoutes(business.attach);
  const source = settings.authentication === 'all' ? (serverRoutes ?? NO_ROUTES) : business.routes;
  const overrides = useRoutes((state) => state.overrides);
  const routes = useMemo(() => {
    const changed = Object.entries(overrides).reduce((tree, [name, meta]) => changeMenuMeta(tree, name, meta), source);
    return settings.rolesControl ? filterRoutes(changed, holder) : changed;
  }, [source, holder, overrides]);
  const menu = useMemo(() => buildMenu(routes), [routes]);
  return useMemo(() => {
    const chain = findChain(routes, pathname);
    return { routes, menu, chain, leaf: chain.at(-1), top: chain[0], activeKey: activeMenuKey(chain) };
  }, [routes, menu, pathname]);
}
