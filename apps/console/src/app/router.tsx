import { createHashRouter, Navigate, type RouteObject } from 'react-router';
import { businessRoutes, publicRoutes } from '../routes';
import { useSettings } from '../stores/settings';
import { loadAntdLocale } from './antdLocale';
import { FullPageSpin } from './FullPageSpin';
import { RootFrame } from './RootFrame';
import { type AppRoute, leaves, type PageLoader, redirects } from './routeTree';

function lazyPage(page: PageLoader) {
  return async () => {
    const module = await page();
    return { Component: module.default };
  };
}

function pageRoute(route: AppRoute): RouteObject {
  return route.page ? { path: route.fullPath, lazy: lazyPage(route.page) } : { path: route.fullPath };
}

/** The login page is built without antd, so a first visit loads and paints it quickly. */
const withoutAntd = (route: AppRoute) => route.name === 'Login';

/** The router, derived from the one route tree: public pages, guarded business pages, catch-all. */
export function createAppRouter() {
  return createHashRouter([
    {
      element: <RootFrame />,
      hydrateFallbackElement: <FullPageSpin />,
      children: [
        ...publicRoutes.filter(withoutAntd).map(pageRoute),
        {
          lazy: async () => {
            const [frame] = await Promise.all([import('./AntdFrame'), loadAntdLocale(useSettings.getState().language)]);
            return { Component: frame.default };
          },
          children: [
            ...publicRoutes.filter((route) => !withoutAntd(route)).map(pageRoute),
            {
              lazy: async () => ({ Component: (await import('./AuthGuard')).default }),
              children: [
                ...leaves(businessRoutes).map(pageRoute),
                ...redirects(businessRoutes).map((route) => ({
                  path: route.fullPath,
                  element: <Navigate to={route.redirect ?? '/'} replace />,
                })),
              ],
            },
          ],
        },
        { path: '*', element: <Navigate to="/404" replace /> },
      ],
    },
  ]);
}
