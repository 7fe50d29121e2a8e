import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';

/**
 * The address of a detail page: a hidden `dynamicNewTab` route (routes.ts) and the query naming the
 * record, so each record opens in a tab of its own (the tab is keyed by path and query).
 */
export function detailPath(path: string, params: Record<string, string | number>): string {
  const query = new URLSearchParams(Object.entries(params).map(([key, value]) => [key, String(value)]));
  return `${path}?${query.toString()}`;
}

/** Opens a record's detail page in its own tab. */
export function useOpenDetail(): (path: string, params: Record<string, string | number>) => void {
  const navigate = useNavigate();
  return (path, params) => navigate(detailPath(path, params));
}

/** A cell that opens its record's detail page in its own tab. */
export function DetailLink({ path, params, children }: { path: string; params: Record<string, string | number>; children: ReactNode }) {
  return <Link to={detailPath(path, params)}>{children}</Link>;
}
