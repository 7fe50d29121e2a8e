import type { TablePaginationConfig } from 'antd';
import type { AppRoute } from '../../app/routeTree';
import { i18n } from '../../lib/i18n';
import { settings } from '../../lib/settings';

/** Client-side search of the sample lists: a case-insensitive match in any of the values. */
export function matches(keyword: string, ...values: Array<string | number | undefined>): boolean {
  const needle = keyword.trim().toLowerCase();
  if (!needle) return true;
  return values.some((value) => value !== undefined && String(value).toLowerCase().includes(needle));
}

/** Keeps the nodes that match and the ancestors of those that do, so a tree table still reads as a tree. */
export function filterTree<T extends { children?: T[] }>(nodes: T[], keep: (node: T) => boolean): T[] {
  const out: T[] = [];
  for (const node of nodes) {
    const children = node.children ? filterTree(node.children, keep) : [];
    if (keep(node)) out.push(node);
    else if (children.length > 0) out.push({ ...node, children });
  }
  return out;
}

/** The sample tables' pager: 20 rows a page and the total in the current language. */
export function demoPagination(): TablePaginationConfig {
  return { defaultPageSize: settings.pageSize, showSizeChanger: true, showTotal: (total) => i18n.t('common.total', { total }) };
}

export interface MenuRow {
  name: string;
  path: string;
  title: string;
  icon?: string;
  hidden: boolean;
  children?: MenuRow[];
}

/** The console's own route tree (its business routes, these samples included) as rows. */
export function menuRows(routes: AppRoute[]): MenuRow[] {
  return routes.map((route) => {
    const row: MenuRow = { name: route.name, path: route.fullPath, title: route.meta?.title ?? '', hidden: route.meta?.hidden === true };
    if (route.meta?.icon) row.icon = route.meta.icon;
    if (route.children && route.children.length > 0) row.children = menuRows(route.children);
    return row;
  });
}
