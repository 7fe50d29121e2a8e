import type { RouteRecord } from '@parley/protocol';
import { createContext, useContext } from 'react';
import type { AppRoute } from './routeTree';

/**
 * The business routes with their pages, handed down from the root frame: pages and layouts read them
 * here rather than importing the route tree, which itself names every page (no import circle).
 */
export interface BusinessRoutes {
  /** The built-in tree (with the demo pages when the demo is on). */
  routes: AppRoute[];
  /** Attaches pages to a route list, e.g. one fetched from the server in 'all' authentication mode. */
  attach(records: RouteRecord[]): AppRoute[];
}

export const BusinessRoutesContext = createContext<BusinessRoutes | null>(null);

export function useBusinessRoutes(): BusinessRoutes {
  const value = useContext(BusinessRoutesContext);
  if (!value) throw new Error('useBusinessRoutes outside the root frame');
  return value;
}
