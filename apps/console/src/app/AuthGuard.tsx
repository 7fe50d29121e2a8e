import { can } from '@parley/protocol';
import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useEffect } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useUserInfo } from '../features/auth/queries';
import { queryClient } from '../lib/queryClient';
import { endSession, loginPath } from '../lib/request';
import { settings } from '../lib/settings';
import { routeTree } from '../routes';
import { useSession } from '../stores/session';
import { FullPageSpin } from './FullPageSpin';
import { findChain } from './routeTree';

const MainLayout = lazy(() => import('./layouts/MainLayout'));
const MfaSetupStep = lazy(() => import('../features/personal/MfaSetupStep'));

/** Where an agent whose password is too short is sent, when their role may open it (others get the drawer). */
const PERSONAL_PATH = '/personal/personal';

/**
 * The navigation guard of seed §2: no token → login with the path as redirect; a token → user info,
 * then the page if every route on its chain passes can(), else /403; any failure → reset and login.
 */
function Guard() {
  const token = useSession((state) => state.token);
  const location = useLocation();
  const info = useUserInfo();
  const failed = info.isError;

  useEffect(() => {
    if (failed) endSession();
  }, [failed]);

  if (!token && settings.loginInterception) return <Navigate to={loginPath(location.pathname + location.search)} replace />;
  if (info.isPending || failed) return <FullPageSpin />;
  if (info.data.mfaSetupRequired) {
    return (
      <Suspense fallback={<FullPageSpin />}>
        <MfaSetupStep />
      </Suspense>
    );
  }
  const mayOpen = (path: string) => findChain(routeTree, path).every((route) => can(info.data, route.meta?.guard));
  if (info.data.passwordChangeRequired && location.pathname !== PERSONAL_PATH && mayOpen(PERSONAL_PATH)) {
    return <Navigate to={PERSONAL_PATH} replace />;
  }
  const chain = findChain(routeTree, location.pathname);
  if (settings.rolesControl && !chain.every((route) => can(info.data, route.meta?.guard))) return <Navigate to="/403" replace />;
  return (
    <Suspense fallback={<FullPageSpin />}>
      <MainLayout />
    </Suspense>
  );
}

/** Loaded only behind the login: the query client and everything signed-in pages share. */
export default function AuthGuard() {
  return (
    <QueryClientProvider client={queryClient}>
      <Guard />
    </QueryClientProvider>
  );
}
