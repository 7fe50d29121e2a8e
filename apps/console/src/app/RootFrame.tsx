import NProgress from 'nprogress';
import 'nprogress/nprogress.css';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation, useNavigation } from 'react-router';
import { routeTitle } from '../lib/i18n';
import { settings } from '../lib/settings';
import { attachBusinessPages, businessRoutes, routeTree } from '../routes';
import { useSettings } from '../stores/settings';
import { type BusinessRoutes, BusinessRoutesContext } from './businessRoutes';
import { buildTitle, findChain } from './routeTree';

const BUSINESS: BusinessRoutes = { routes: businessRoutes, attach: attachBusinessPages };

NProgress.configure({
  minimum: settings.progress.minimum,
  speed: settings.progress.speed,
  trickleSpeed: settings.progress.trickleSpeed,
  showSpinner: false,
});

/** Around every route: progress bar while a page loads, title after each navigation, scroll to top. */
export function RootFrame() {
  const navigation = useNavigation();
  const location = useLocation();
  const showProgressBar = useSettings((state) => state.theme.showProgressBar);
  const { t, i18n } = useTranslation();

  useEffect(() => {
    if (!showProgressBar) return;
    if (navigation.state === 'idle') NProgress.done();
    else NProgress.start();
  }, [navigation.state, showProgressBar]);

  useEffect(() => {
    const leaf = findChain(routeTree, location.pathname).at(-1);
    document.title = buildTitle(routeTitle(leaf?.meta?.title), t('app.title'), settings.titleSeparator, settings.titleReverse);
    document.documentElement.lang = i18n.language === 'zh' ? 'zh-CN' : 'en';
  }, [location.pathname, t, i18n.language]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the scroll resets on every new path.
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [location.pathname]);

  return (
    <BusinessRoutesContext.Provider value={BUSINESS}>
      <Outlet />
    </BusinessRoutesContext.Provider>
  );
}
