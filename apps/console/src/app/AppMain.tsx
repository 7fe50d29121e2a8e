import { type ReactElement, Suspense, useRef } from 'react';
import { useLocation, useOutlet } from 'react-router';
import { settings } from '../lib/settings';
import { useTabs } from '../stores/tabs';
import { useUi } from '../stores/ui';
import { FullPageSpin } from './FullPageSpin';
import { PageErrorBoundary } from './PageErrorBoundary';
import type { AppRoute } from './routeTree';
import { tabKey } from './TabsBar';

/** The id of the page's main region, the skip link's target. */
export const MAIN_CONTENT_ID = 'main-content';

/**
 * Tab-based keep-alive: pages open as tabs stay mounted (hidden) so their state survives switching;
 * routes flagged noKeepAlive are drawn fresh; the reload event remounts one page.
 */
export function AppMain({ leaf }: { leaf: AppRoute | undefined }) {
  const outlet = useOutlet();
  const location = useLocation();
  const tabs = useTabs((state) => state.tabs);
  const reloadKeys = useUi((state) => state.reloadKeys);
  const cache = useRef(new Map<string, ReactElement>());
  const active = tabKey(leaf, location.pathname, location.search);
  const keep = !leaf?.meta?.noKeepAlive;

  const open = new Set(tabs.map((tab) => tab.path));
  for (const key of cache.current.keys()) if (key !== active && !open.has(key)) cache.current.delete(key);
  if (keep && outlet) {
    cache.current.delete(active);
    cache.current.set(active, outlet);
    while (cache.current.size > settings.keepAliveMax) {
      const oldest = cache.current.keys().next().value;
      if (oldest === undefined || oldest === active) break;
      cache.current.delete(oldest);
    }
  }

  const entries = Array.from(cache.current.entries());
  return (
    <main id={MAIN_CONTENT_ID} className="app-main" tabIndex={-1}>
      {entries.map(([key, element]) => (
        <div key={`${key}#${reloadKeys[key] ?? 0}`} className="app-page" style={key === active ? undefined : { display: 'none' }}>
          <PageErrorBoundary>
            <Suspense fallback={<FullPageSpin />}>{element}</Suspense>
          </PageErrorBoundary>
        </div>
      ))}
      {!keep && (
        <div key={`${active}#${reloadKeys[active] ?? 0}`} className="app-page">
          <PageErrorBoundary>
            <Suspense fallback={<FullPageSpin />}>{outlet}</Suspense>
          </PageErrorBoundary>
        </div>
      )}
    </main>
  );
}
