import { BUSINESS_ROUTES, type RouteRecord } from '@parley/protocol';
import type { ComponentType } from 'react';
import { type AppRoute, attachPages, ensureCatchAll, isExternal, type PageLoader } from './app/routeTree';
import { DEMO_ROUTES } from './features/demo/routes';
import { settings } from './lib/settings';

/** Public routes: hidden from menus and open without a session (the whitelist). */
const PUBLIC_ROUTES: RouteRecord[] = [
  { path: '/login', name: 'Login', meta: { title: 'login', hidden: true } },
  { path: '/register', name: 'Register', meta: { title: 'register', hidden: true } },
  { path: '/authLogin', name: 'AuthLogin', meta: { title: 'authLogin', hidden: true } },
  { path: '/callback', name: 'Callback', meta: { title: 'callback', hidden: true } },
  { path: '/403', name: 'Forbidden', meta: { title: 'forbidden', hidden: true } },
  { path: '/404', name: 'NotFound', meta: { title: 'notFound', hidden: true } },
];

const notAvailable: PageLoader = () => import('./features/placeholder/NotAvailablePage');

/** A page among the settings pages a module holds together (they share the form kit and previews). */
function settingsPage<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K): PageLoader {
  return () => load().then((module) => ({ default: module[name] }));
}

/** A statistics page: all of them share one chunk with ECharts, which the login page never loads. */
function censusPage(name: string): PageLoader {
  return () => import('./features/census/censusPages').then((module) => ({ default: module.censusPageFor(name) }));
}

const CENSUS_ROUTE_NAMES = BUSINESS_ROUTES.find((route) => route.path === '/census')?.children?.map((child) => child.name) ?? [];

/** Pages by route name; a business route without one shows the honest "not available yet" page. */
const PAGES: Record<string, PageLoader> = {
  Login: () => import('./features/auth/LoginPage'),
  Register: () => import('./features/auth/RegisterPage'),
  AuthLogin: () => import('./features/auth/AuthLoginPage'),
  Callback: () => import('./features/auth/CallbackPage'),
  Forbidden: () => import('./features/errors/ForbiddenPage'),
  NotFound: () => import('./features/errors/NotFoundPage'),
  Index: () => import('./features/home/HomePage'),
  WorkbenchIndex: () => import('./features/workbench/WorkbenchPage'),
  ServiceIndex: () => import('./features/service/ServicePage'),
  Friendly: () => import('./features/friendly/FriendlyPage'),
  Label: () => import('./features/label/LabelPage'),
  Role: () => import('./features/role/RolePage'),
  Record: () => import('./features/record/RecordPage'),
  Audit: () => import('./features/audit/AuditPage'),
  Letter: () => import('./features/letter/LetterPage'),
  UserIndex: () => import('./features/visitors/VisitorsPage'),
  OfficialAccount: () => import('./features/visitors/VisitorsPage'),
  MiniProgram: () => import('./features/visitors/VisitorsPage'),
  UserDetail: () => import('./features/visitors/VisitorDetailPage'),
  HistoryIndex: () => import('./features/history/HistoryPage'),
  HistoryDetail: () => import('./features/history/HistoryDetailPage'),
  LinkIndex: () => import('./features/link/LinkPage'),
  RobotIndex: () => import('./features/robot/RobotIndexPage'),
  AskRobot: () => import('./features/robot/AskRobotPage'),
  HighRobot: () => import('./features/robot/HighRobotPage'),
  PersonalIndex: () => import('./features/personal/PersonalPage'),
  AccessIndex: () => import('./features/access/AccessPage'),
  System_takeIcon: settingsPage(() => import('./features/settings/pages/launcher'), 'TakeIconPage'),
  System_floatNavigation: settingsPage(() => import('./features/settings/pages/launcher'), 'FloatNavigationPage'),
  System_invitationBox: settingsPage(() => import('./features/settings/pages/launcher'), 'InvitationBoxPage'),
  System_windowStyle: settingsPage(() => import('./features/settings/pages/window'), 'WindowStylePage'),
  System_windowSetting: settingsPage(() => import('./features/settings/pages/window'), 'WindowSettingPage'),
  System_region: settingsPage(() => import('./features/settings/pages/service'), 'RegionPage'),
  System_quickReply: settingsPage(() => import('./features/settings/pages/service'), 'QuickReplyPage'),
  System_autoAnswer: settingsPage(() => import('./features/settings/pages/service'), 'AutoAnswerPage'),
  System_softwareSetting: settingsPage(() => import('./features/settings/pages/system'), 'SoftwareSettingPage'),
  System_weChatSetting: settingsPage(() => import('./features/settings/pages/system'), 'WeChatSettingPage'),
  System_desktopSetting: settingsPage(() => import('./features/settings/pages/system'), 'DesktopSettingPage'),
  System_appSetting: settingsPage(() => import('./features/settings/pages/system'), 'AppSettingPage'),
  ...Object.fromEntries(CENSUS_ROUTE_NAMES.map((name) => [name, censusPage(name)])),
  DemoTable: () => import('./features/demo/DemoTablePage'),
  DemoIcon: () => import('./features/demo/DemoIconPage'),
  NoColumnIndex: () => import('./features/demo/NoColumnPage'),
  Goods: () => import('./features/demo/GoodsPage'),
  Workflow: () => import('./features/demo/WorkflowPage'),
  UserManagement: () => import('./features/demo/UserManagementPage'),
  RoleManagement: () => import('./features/demo/RoleManagementPage'),
  DepartmentManagement: () => import('./features/demo/DepartmentManagementPage'),
  MenuManagement: () => import('./features/demo/MenuManagementPage'),
  SystemLog: () => import('./features/demo/SystemLogPage'),
  Error403: () => import('./features/demo/Error403Page'),
  Error404: () => import('./features/demo/Error404Page'),
};

/** The routes of a tree that draw a page of their own: leaves, external links aside. */
function pageRoutes(records: RouteRecord[]): RouteRecord[] {
  return records.flatMap((item) =>
    item.children && item.children.length > 0 ? pageRoutes(item.children) : isExternal(item.path) ? [] : [item],
  );
}

/** The route names of `records` that no page draws yet: they open the "not available yet" page. */
export function unbuiltRoutes(records: RouteRecord[]): string[] {
  return pageRoutes(records)
    .filter((item) => !PAGES[item.name])
    .map((item) => item.name);
}

function withPlaceholders(records: RouteRecord[]): Record<string, PageLoader> {
  return Object.fromEntries(pageRoutes(records).map((item) => [item.name, PAGES[item.name] ?? notAvailable]));
}

/** Attaches pages to a route list, e.g. one fetched from the server in 'all' authentication mode. */
export function attachBusinessPages(records: RouteRecord[]): AppRoute[] {
  return attachPages(records, withPlaceholders(records));
}

export const publicRoutes: AppRoute[] = attachPages(PUBLIC_ROUTES, PAGES);
export const businessRoutes: AppRoute[] = attachBusinessPages(settings.demo ? [...BUSINESS_ROUTES, ...DEMO_ROUTES] : BUSINESS_ROUTES);

/** The one route tree: public routes, business routes, and the catch-all to /404 last. */
export const routeTree: AppRoute[] = ensureCatchAll([...publicRoutes, ...businessRoutes]);
