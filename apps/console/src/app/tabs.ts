import type { RouteMeta } from '@parley/protocol';

/** A visited page shown as a tab; `path` is the full path (with query) for dynamicNewTab routes. */
export interface Tab {
  path: string;
  name: string;
  meta: Pick<RouteMeta, 'title' | 'icon' | 'noClosable' | 'dynamicNewTab' | 'noKeepAlive'>;
}

/** The first tab becomes non-closable when none is, so there is always somewhere to go back to. */
function ensureAnchor(tabs: Tab[]): Tab[] {
  if (tabs.length === 0 || tabs.some((tab) => tab.meta.noClosable)) return tabs;
  const [first, ...rest] = tabs;
  return first ? [{ ...first, meta: { ...first.meta, noClosable: true } }, ...rest] : tabs;
}

/**
 * Adds or updates a tab (seed §4): an existing path is updated unless the route opens a new tab per
 * full path; over `max` tabs the oldest closable one that is not the new one goes.
 */
export function addTab(tabs: Tab[], tab: Tab, max: number): Tab[] {
  const index = tabs.findIndex((item) => item.path === tab.path);
  let next: Tab[];
  if (index >= 0) {
    if (tab.meta.dynamicNewTab) return ensureAnchor(tabs);
    next = tabs.map((item, i) => (i === index ? { ...item, ...tab, meta: { ...item.meta, ...tab.meta } } : item));
  } else {
    next = [...tabs, tab];
  }
  while (next.length > max) {
    const victim = next.findIndex((item) => !item.meta.noClosable && item.path !== tab.path);
    if (victim < 0) break;
    next = next.filter((_, i) => i !== victim);
  }
  return ensureAnchor(next);
}

/** Non-closable routes are always present as tabs, ahead of the visited ones. */
export function withAffixTabs(tabs: Tab[], affix: Tab[]): Tab[] {
  const missing = affix.filter((tab) => !tabs.some((item) => item.path === tab.path));
  return missing.length > 0 ? [...missing, ...tabs] : tabs;
}

export function closeTab(tabs: Tab[], path: string): Tab[] {
  return tabs.filter((tab) => tab.path !== path || tab.meta.noClosable);
}

export function closeOthers(tabs: Tab[], path: string): Tab[] {
  return tabs.filter((tab) => tab.meta.noClosable || tab.path === path);
}

export function closeLeft(tabs: Tab[], path: string): Tab[] {
  const index = tabs.findIndex((tab) => tab.path === path);
  if (index < 0) return tabs;
  return tabs.filter((tab, i) => i >= index || tab.meta.noClosable);
}

export function closeRight(tabs: Tab[], path: string): Tab[] {
  const index = tabs.findIndex((tab) => tab.path === path);
  if (index < 0) return tabs;
  return tabs.filter((tab, i) => i <= index || tab.meta.noClosable);
}

export function closeAll(tabs: Tab[]): Tab[] {
  return tabs.filter((tab) => tab.meta.noClosable);
}

/** Where to go after the active tab closed: the last remaining tab, else the root. */
export function fallbackPath(tabs: Tab[]): string {
  return tabs.at(-1)?.path ?? '/';
}

/** Merges meta into the tabs whose route name or title matches (seed §4). */
export function changeTabsMeta(tabs: Tab[], match: { name?: string; title?: string }, meta: Partial<Tab['meta']>): Tab[] {
  return tabs.map((tab) =>
    (match.name !== undefined && tab.name === match.name) || (match.title !== undefined && tab.meta.title === match.title)
      ? { ...tab, meta: { ...tab.meta, ...meta } }
      : tab,
  );
}
