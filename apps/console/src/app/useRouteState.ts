import { useMemo } from 'react';
import { useLocation } from 'react-router';
import { useAccess } from '../lib/access';
import { businessRoutes } from '../routes';
import { type AppRoute, activeMenuKey, buildMenu, filterRoutes, findChain, type MenuNode } from './routeTree';

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
export function useRouteState(): RouteState {
  const holder = useAccess();
  const { pathname } = useLocation();
  const routes = useMemo(() => filterRoutes(businessRoutes, holder), [holder]);
  const menu = useMemo(() => buildMenu(routes), [routes]);
  return useMemo(() => {
    const chain = findChain(routes, pathname);
    return { routes, menu, chain, leaf: chain.at(-1), top: chain[0], activeKey: activeMenuKey(chain) };
  }, [routes, menu, pathname]);
}
