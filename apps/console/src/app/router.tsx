import { createHashRouter, Navigate, type RouteObject } from 'react-router';
import { businessRoutes, publicRoutes } from '../routes';
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

/** The router, derived from the one route tree: public pages, guarded business pages, catch-all. */
export function createAppRouter() {
  return createHashRouter([
    {
      element: <RootFrame />,
      hydrateFallbackElement: <FullPageSpin />,
      children: [
        ...publicRoutes.map(pageRoute),
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
        { path: '*', element: <Navigate to="/404" replace /> },
      ],
    },
  ]);
}
