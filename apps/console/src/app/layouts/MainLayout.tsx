import { MenuFoldOutlined, MenuUnfoldOutlined } from '@ant-design/icons';
import { Spin, Tabs } from 'antd';
import { type ReactNode, useCallback, useEffect, useLayoutEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useIndexInfo } from '../../features/workbench/queries';
import { toastLoading } from '../../lib/feedback';
import { settings } from '../../lib/settings';
import { useWindowEvent } from '../../lib/useWindowEvent';
import { useSettings } from '../../stores/settings';
import { useTabs } from '../../stores/tabs';
import { useUi } from '../../stores/ui';
import { AppMain, MAIN_CONTENT_ID } from '../AppMain';
import { AppBreadcrumb } from '../Breadcrumb';
import { HeaderControls } from '../header/HeaderControls';
import { RouteIcon } from '../icons';
import { Logo } from '../Logo';
import { type AppRoute, buildMenu, firstLeafPath, isExternal, topLevelRoutes } from '../routeTree';
import { SideMenu } from '../SideMenu';
import { hideOverflowButtons, TabsBar } from '../TabsBar';
import { ThemeDrawer } from '../ThemeDrawer';
import { effectiveLayout, PALETTES } from '../theme';
import { type RouteState, useRouteState } from '../useRouteState';

/** Desktop or mobile by window width (seed §9: under 992 px is mobile). */
function useDevice() {
  const setDevice = useSettings((state) => state.setDevice);
  const onResize = useCallback(() => setDevice(window.innerWidth < settings.mobileWidth ? 'mobile' : 'desktop'), [setDevice]);
  useEffect(onResize, [onResize]);
  useWindowEvent('resize', onResize);
}

function useThemeEvents() {
  const { t } = useTranslation();
  const randomTheme = useSettings((state) => state.randomTheme);
  const onRandom = useCallback(() => {
    const close = toastLoading(t('theme.randomLoading'));
    randomTheme();
    setTimeout(close, settings.randomThemeLoadingMs);
  }, [t, randomTheme]);
  useWindowEvent('random-theme', onRandom);
}

/**
 * The agent's socket runs while an agent is signed in, whatever page is open, so that what it pushes
 * (a new letter for the bell and the inbox, a visitor for the workbench) arrives at once. The workbench
 * code loads apart from the shell.
 */
function useLiveConnection() {
  const index = useIndexInfo();
  useEffect(() => {
    const info = index.data;
    if (info) void import('../../features/workbench/live').then((live) => live.startLive(info));
  }, [index.data]);
}

/** A logged-out session leaves no tabs behind for the next user. */
function useResetOnSessionEnd() {
  useWindowEvent(
    'session-reset',
    useTabs((state) => state.reset),
  );
}

function FoldButton() {
  const { t } = useTranslation();
  const collapse = useSettings((state) => state.collapse);
  const toggle = useSettings((state) => state.toggleCollapse);
  return (
    <button
      type="button"
      className="header-icon fold-button"
      data-testid="fold-button"
      aria-label={collapse ? t('header.unfold') : t('header.fold')}
      onClick={toggle}
    >
      {collapse ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
    </button>
  );
}

function NavBar({ left, state }: { left?: ReactNode; state: RouteState }) {
  return (
    <div className="nav-bar">
      <div className="nav-bar-left">{left ?? <AppBreadcrumb chain={state.chain} />}</div>
      <HeaderControls />
    </div>
  );
}

function HeaderBlock({ children }: { children: ReactNode }) {
  const fixed = useSettings((state) => state.theme.fixedHeader);
  const layout = useSettings((state) => effectiveLayout(state.theme, state.device));
  return <div className={`app-header${fixed && layout !== 'common' ? ' app-header-fixed' : ''}`}>{children}</div>;
}

/** The sticky part (nav bar and tabs) above the page. */
function Frame({ state, nav }: { state: RouteState; nav?: ReactNode }) {
  const showTabs = useSettings((s) => s.theme.showTabs);
  return (
    <>
      <HeaderBlock>
        {nav}
        {showTabs && <TabsBar leaf={state.leaf} routes={state.routes} />}
      </HeaderBlock>
      <AppMain leaf={state.leaf} />
    </>
  );
}

function useMenuTheme(): 'dark' | 'light' {
  return useSettings((state) => PALETTES[state.theme.themeName].menu);
}

function Sider({ children, width, className = '' }: { children: ReactNode; width: number; className?: string }) {
  const background = useSettings((state) => state.theme.background);
  return (
    <aside
      className={`app-sider ${className}${background === 'vab-background' ? ' app-sider-bg' : ''}`}
      style={{ width }}
      data-testid="sider"
    >
      {children}
    </aside>
  );
}

/** vertical (and every layout on mobile): sidebar menu, nav bar with breadcrumb, tabs, page. */
function VerticalLayout({ state, float = false }: { state: RouteState; float?: boolean }) {
  const collapse = useSettings((s) => s.collapse);
  const device = useSettings((s) => s.device);
  const foldSidebar = useSettings((s) => s.foldSidebar);
  const menuTheme = useMenuTheme();
  const mobile = device === 'mobile';
  const width = collapse ? (mobile ? 0 : 64) : 220;
  return (
    <div className={`layout layout-${float ? 'float' : 'vertical'}${mobile ? ' is-mobile' : ''}`}>
      <Sider width={width} className={mobile && !collapse ? 'app-sider-open' : ''}>
        <Logo collapsed={collapse && !mobile} light={menuTheme === 'light'} />
        <SideMenu
          nodes={state.menu}
          activeKey={state.activeKey}
          mode={float ? 'vertical' : 'inline'}
          collapsed={collapse && !mobile}
          theme={menuTheme}
        />
      </Sider>
      {mobile && !collapse && <div className="mobile-mask" data-testid="mobile-mask" onClick={foldSidebar} aria-hidden="true" />}
      <div className="layout-body" style={{ marginLeft: mobile ? 0 : width }}>
        <Frame
          state={state}
          nav={
            <NavBar
              state={state}
              left={
                <>
                  <FoldButton />
                  {!mobile && <AppBreadcrumb chain={state.chain} />}
                </>
              }
            />
          }
        />
      </div>
    </div>
  );
}

/** horizontal: logo, the whole menu across the top (levelHidden flattened), controls; no sidebar. */
function HorizontalLayout({ state }: { state: RouteState }) {
  const menuTheme = useMenuTheme();
  return (
    <div className="layout layout-horizontal">
      <Frame
        state={state}
        nav={
          <div className="top-bar">
            <Logo light={menuTheme === 'light'} />
            <SideMenu className="top-menu" nodes={state.menu} activeKey={state.activeKey} mode="horizontal" theme={menuTheme} />
            <HeaderControls />
          </div>
        }
      />
    </div>
  );
}

/** common: a full-width top bar with the logo, then sidebar and page below it. */
function CommonLayout({ state }: { state: RouteState }) {
  const collapse = useSettings((s) => s.collapse);
  const menuTheme = useMenuTheme();
  const width = collapse ? 64 : 220;
  return (
    <div className="layout layout-common">
      <div className="top-bar top-bar-common">
        <Logo light={menuTheme === 'light'} />
        <FoldButton />
        <AppBreadcrumb chain={state.chain} />
        <span className="top-bar-spacer" />
        <HeaderControls />
      </div>
      <Sider width={width} className="app-sider-below">
        <SideMenu nodes={state.menu} activeKey={state.activeKey} mode="inline" collapsed={collapse} theme={menuTheme} />
      </Sider>
      <div className="layout-body layout-common-body" style={{ marginLeft: width }}>
        <Frame state={state} />
      </div>
    </div>
  );
}

/** A first-level entry opens its first page, or a new window for an external link. */
function openTopLevel(route: AppRoute, navigate: (path: string) => void): void {
  if (isExternal(route.fullPath)) window.open(route.fullPath, '_blank', 'noopener,noreferrer');
  else navigate(firstLeafPath(route));
}

function TopLevelEntry({ route, active, onChoose }: { route: AppRoute; active: boolean; onChoose: (route: AppRoute) => void }) {
  const { t } = useTranslation();
  return (
    <button type="button" className={`column-item${active ? ' is-active' : ''}`} onClick={() => onChoose(route)} data-testid="column-item">
      <RouteIcon name={route.meta?.icon} />
      <span className="column-item-title">{t(`route.${route.meta?.title}`, { defaultValue: route.meta?.title })}</span>
    </button>
  );
}

/** column: a bar of first-level routes, then the chosen one's menu; noColumn folds the second column. */
function ColumnLayout({ state }: { state: RouteState }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const collapse = useSettings((s) => s.collapse);
  const columnStyle = useSettings((s) => s.theme.columnStyle);
  const menuTheme = useMenuTheme();
  const tops = topLevelRoutes(state.routes);
  const noColumn = Boolean(state.leaf?.meta?.noColumn);
  const folded = collapse || noColumn;
  const columnWidth = columnStyle === 'horizontal' ? 120 : 76;
  const width = columnWidth + (folded ? 0 : 180);
  const children = state.top ? buildMenu(state.top.children ?? []) : [];
  return (
    <div className={`layout layout-column column-style-${columnStyle}`}>
      <Sider width={width} className="app-sider-column">
        <div className="column-bar" style={{ width: columnWidth }}>
          <Logo collapsed light={menuTheme === 'light'} />
          <nav className="column-items">
            {tops.map((route) => (
              <TopLevelEntry
                key={route.fullPath}
                route={route}
                active={route === state.top || route.fullPath === state.top?.fullPath}
                onChoose={(chosen) => openTopLevel(chosen, navigate)}
              />
            ))}
          </nav>
        </div>
        {!folded && (
          <div className="column-menu">
            <div className="column-menu-title">{t(`route.${state.top?.meta?.title}`, { defaultValue: state.top?.meta?.title ?? '' })}</div>
            <SideMenu nodes={children} activeKey={state.activeKey} mode="inline" theme="light" />
          </div>
        )}
      </Sider>
      <div className="layout-body" style={{ marginLeft: width }}>
        <Frame
          state={state}
          nav={
            <NavBar
              state={state}
              left={
                <>
                  {!noColumn && <FoldButton />}
                  <AppBreadcrumb chain={state.chain} />
                </>
              }
            />
          }
        />
      </div>
    </div>
  );
}

/** comprehensive: the nav bar holds tabs of the first-level routes; the sidebar shows the chosen one's children. */
function ComprehensiveLayout({ state }: { state: RouteState }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const collapse = useSettings((s) => s.collapse);
  const extraFirst = useSettings((s) => s.extraFirst);
  const setExtraFirst = useSettings((s) => s.setExtraFirst);
  const menuTheme = useMenuTheme();
  const tops = topLevelRoutes(state.routes);
  const currentTop = state.top?.fullPath ?? '';
  useEffect(() => {
    if (currentTop) setExtraFirst(currentTop);
  }, [currentTop, setExtraFirst]);
  const chosen = tops.find((route) => route.fullPath === (extraFirst || currentTop)) ?? tops[0];
  const nodes = chosen ? buildMenu(chosen.children ?? []) : [];
  const width = collapse ? 64 : 220;
  // The top-level tabs overflow into antd's "more" button, which their tab list may not own.
  useLayoutEffect(() => {
    for (const tabs of document.querySelectorAll('.comprehensive-tabs')) hideOverflowButtons(tabs);
  });
  return (
    <div className="layout layout-comprehensive">
      <Sider width={width}>
        <Logo collapsed={collapse} light={menuTheme === 'light'} />
        <SideMenu nodes={nodes} activeKey={state.activeKey} mode="inline" collapsed={collapse} theme={menuTheme} />
      </Sider>
      <div className="layout-body" style={{ marginLeft: width }}>
        <Frame
          state={state}
          nav={
            <NavBar
              state={state}
              left={
                <>
                  <FoldButton />
                  <Tabs
                    className="comprehensive-tabs"
                    activeKey={chosen?.fullPath}
                    onChange={(key) => {
                      const route = tops.find((item) => item.fullPath === key);
                      if (!route) return;
                      if (!isExternal(route.fullPath)) setExtraFirst(key);
                      openTopLevel(route, navigate);
                    }}
                    items={tops.map((route) => ({
                      key: route.fullPath,
                      label: (
                        <span data-testid="comprehensive-tab">
                          <RouteIcon name={route.meta?.icon} /> {t(`route.${route.meta?.title}`, { defaultValue: route.meta?.title })}
                        </span>
                      ),
                    }))}
                  />
                </>
              }
            />
          }
        />
      </div>
    </div>
  );
}

/**
 * The first stop of the keyboard: jumps past the menu, header and tabs to the page. The hash router
 * owns the URL fragment, so the link moves focus itself instead of following its href.
 */
function SkipLink() {
  const { t } = useTranslation();
  return (
    <a
      className="skip-link"
      href={`#${MAIN_CONTENT_ID}`}
      data-testid="skip-link"
      onClick={(event) => {
        event.preventDefault();
        document.getElementById(MAIN_CONTENT_ID)?.focus();
      }}
    >
      {t('common.skipToContent')}
    </a>
  );
}

/** The authenticated frame: one of the six layouts, the theme drawer and the loading overlay. */
export default function MainLayout() {
  useDevice();
  useThemeEvents();
  useResetOnSessionEnd();
  useLiveConnection();
  const state = useRouteState();
  const layout = useSettings((s) => effectiveLayout(s.theme, s.device));
  const loading = useUi((s) => s.loading > 0);
  const { t } = useTranslation();

  let body: ReactNode;
  switch (layout) {
    case 'horizontal':
      body = <HorizontalLayout state={state} />;
      break;
    case 'common':
      body = <CommonLayout state={state} />;
      break;
    case 'column':
      body = <ColumnLayout state={state} />;
      break;
    case 'comprehensive':
      body = <ComprehensiveLayout state={state} />;
      break;
    case 'float':
      body = <VerticalLayout state={state} float />;
      break;
    default:
      body = <VerticalLayout state={state} />;
  }
  return (
    <div className="app-shell" data-layout={layout} data-testid="app-shell">
      <SkipLink />
      {body}
      <ThemeDrawer />
      <Spin fullscreen spinning={loading} tip={t('common.loading')} />
    </div>
  );
}
