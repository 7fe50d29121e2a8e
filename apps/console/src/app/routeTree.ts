import { type AccessHolder, can, joinPath, type RouteMeta, type RouteRecord } from '@parley/protocol';
import type { ComponentType } from 'react';

export type PageLoader = () => Promise<{ default: ComponentType }>;

/** A node of the console's one route tree: the protocol's record plus its full path and page. */
export interface AppRoute {
  path: string;
  fullPath: string;
  name: string;
  redirect?: string;
  meta?: RouteMeta;
  page?: PageLoader;
  children?: AppRoute[];
}

export const CATCH_ALL_NAME = 'NotFoundRedirect';

export function isExternal(path: string): boolean {
  return /^(https?:|mailto:|tel:|\/\/)/.test(path);
}

/** Attaches pages to route records by route name and resolves each full path. */
export function attachPages(records: RouteRecord[], pages: Partial<Record<string, PageLoader>>, parent = ''): AppRoute[] {
  return records.map((record) => {
    const fullPath = isExternal(record.path) ? record.path : joinPath(parent || '/', record.path);
    const route: AppRoute = { path: record.path, fullPath, name: record.name };
    if (record.redirect) route.redirect = record.redirect;
    if (record.meta) route.meta = record.meta;
    const page = pages[record.name];
    if (page) route.page = page;
    if (record.children) route.children = attachPages(record.children, pages, fullPath);
    return route;
  });
}

/** The last route must be a hidden catch-all to /404 (seed §2); it is appended when missing. */
export function ensureCatchAll(routes: AppRoute[]): AppRoute[] {
  if (routes.at(-1)?.path === '*') return routes;
  return [...routes, { path: '*', fullPath: '*', name: CATCH_ALL_NAME, redirect: '/404', meta: { title: 'notFound', hidden: true } }];
}

/** Routes the holder may open; a parent whose children all fail goes too (seed §2, role control). */
export function filterRoutes(routes: AppRoute[], holder: AccessHolder): AppRoute[] {
  const kept: AppRoute[] = [];
  for (const route of routes) {
    if (!can(holder, route.meta?.guard)) continue;
    if (route.children) {
      const children = filterRoutes(route.children, holder);
      if (children.length === 0 && route.children.length > 0) continue;
      kept.push({ ...route, children });
    } else kept.push(route);
  }
  return kept;
}

/** The seed's changeMenuMeta: merges meta into the named route at any depth. */
export function changeMenuMeta(routes: AppRoute[], name: string, meta: Partial<RouteMeta>): AppRoute[] {
  return routes.map((route) => {
    if (route.name === name) return { ...route, meta: { title: route.name, ...route.meta, ...meta } };
    if (route.children) return { ...route, children: changeMenuMeta(route.children, name, meta) };
    return route;
  });
}

export interface MenuNode {
  /** Full path, also the menu key. */
  key: string;
  name: string;
  title: string;
  icon?: string;
  badge?: string;
  external: boolean;
  children?: MenuNode[];
}

function visible(route: AppRoute): boolean {
  return route.meta !== undefined && !route.meta.hidden;
}

/**
 * Menu entries by seed §2: an item shows if it has meta and is not hidden; a levelHidden item is
 * replaced by its children; an item is a submenu when any child is visible.
 */
export function buildMenu(routes: AppRoute[]): MenuNode[] {
  const nodes: MenuNode[] = [];
  for (const route of routes) {
    if (!visible(route) || !route.meta) continue;
    const visibleChildren = (route.children ?? []).filter(visible);
    if (route.meta.levelHidden && route.children) {
      nodes.push(...buildMenu(route.children));
      continue;
    }
    const node: MenuNode = { key: route.fullPath, name: route.name, title: route.meta.title, external: isExternal(route.fullPath) };
    if (route.meta.icon) node.icon = route.meta.icon;
    if (route.meta.badge) node.badge = route.meta.badge;
    if (visibleChildren.length > 0) node.children = buildMenu(route.children ?? []);
    nodes.push(node);
  }
  return nodes;
}

/** Top-level routes that show in a menu: the column bar, comprehensive tabs. */
export function topLevelRoutes(routes: AppRoute[]): AppRoute[] {
  return routes.filter((route) => visible(route) && route.path !== '*');
}

/** The matched chain of routes for a pathname, outermost first; empty when nothing matches. */
export function findChain(routes: AppRoute[], pathname: string): AppRoute[] {
  for (const route of routes) {
    if (route.children && route.children.length > 0) {
      const inner = findChain(route.children, pathname);
      if (inner.length > 0) return [route, ...inner];
    }
    if (route.fullPath === pathname && (!route.children || route.children.length === 0 || route.redirect)) return [route];
  }
  return [];
}

/** First navigable leaf below a route (used when a top-level entry is chosen). */
export function firstLeafPath(route: AppRoute): string {
  const child = (route.children ?? []).find((item) => visible(item)) ?? route.children?.[0];
  if (child) return firstLeafPath(child);
  return route.fullPath;
}

/** Breadcrumb items: the matched chain without breadcrumbHidden routes or a repeated title. */
export function breadcrumbOf(chain: AppRoute[]): AppRoute[] {
  const items: AppRoute[] = [];
  for (const route of chain) {
    if (!route.meta || route.meta.breadcrumbHidden) continue;
    if (items.at(-1)?.meta?.title === route.meta.title) continue;
    items.push(route);
  }
  return items;
}

/** Menu key to highlight: a hidden page highlights its activeMenu parent. */
export function activeMenuKey(chain: AppRoute[]): string {
  const leaf = chain.at(-1);
  return leaf?.meta?.activeMenu ?? leaf?.fullPath ?? '';
}

/** Page title: page name and site title joined by the separator, optionally reversed (seed §2). */
export function buildTitle(pageTitle: string | undefined, siteTitle: string, separator: string, reverse: boolean): string {
  if (!pageTitle) return siteTitle;
  const parts = reverse ? [siteTitle, pageTitle] : [pageTitle, siteTitle];
  return parts.join(separator);
}

/** Every route with a page, flattened with full paths, for the router. */
export function leaves(routes: AppRoute[]): AppRoute[] {
  return routes.flatMap((route) => [...(route.page ? [route] : []), ...leaves(route.children ?? [])]);
}

/** Every redirecting route, for the router. */
export function redirects(routes: AppRoute[]): AppRoute[] {
  return routes.flatMap((route) => [...(route.redirect && route.path !== '*' ? [route] : []), ...redirects(route.children ?? [])]);
}
