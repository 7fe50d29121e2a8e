import { ADMIN_ROLE, AGENT_ROLE, BUSINESS_ROUTES, can } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { businessRoutes, routeTree } from '../routes';
import {
  type AppRoute,
  activeMenuKey,
  attachPages,
  breadcrumbOf,
  buildMenu,
  buildTitle,
  CATCH_ALL_NAME,
  changeMenuMeta,
  ensureCatchAll,
  filterRoutes,
  findChain,
  firstLeafPath,
} from './routeTree';

const admin = { roles: [ADMIN_ROLE], permissions: [] };
const agent = { roles: [AGENT_ROLE], permissions: ['seePermissions:seeHistorical'] };

function keys(nodes: ReturnType<typeof buildMenu>): string[] {
  return nodes.flatMap((node) => [node.key, ...keys(node.children ?? [])]);
}

describe('route tree', () => {
  it('holds the public routes, every business route and ends with a hidden catch-all to /404', () => {
    const paths = routeTree.map((route) => route.fullPath);
    for (const path of [
      '/login',
      '/register',
      '/authLogin',
      '/callback',
      '/403',
      '/404',
      '/',
      '/workbench',
      '/service',
      '/system',
      '/access',
    ]) {
      expect(paths).toContain(path);
    }
    const last = routeTree.at(-1);
    expect(last).toMatchObject({ path: '*', redirect: '/404', name: CATCH_ALL_NAME, meta: { hidden: true } });
    expect(ensureCatchAll(routeTree)).toBe(routeTree);
  });

  it('gives every business leaf a lazy page', () => {
    const leaves = (routes: AppRoute[]): AppRoute[] =>
      routes.flatMap((route) => (route.children?.length ? leaves(route.children) : [route]));
    for (const leaf of leaves(businessRoutes)) expect(typeof leaf.page, leaf.fullPath).toBe('function');
  });

  it('resolves full paths of nested routes', () => {
    const chain = findChain(businessRoutes, '/census/flow/source');
    expect(chain.map((route) => route.name)).toEqual(['Census', 'Flow_source']);
    expect(findChain(businessRoutes, '/history/letter').at(-1)?.meta?.badge).toBe('letter');
    expect(findChain(businessRoutes, '/nowhere')).toEqual([]);
  });
});

describe('can() on the seed guards', () => {
  it('admin passes everything; an agent holds only what its permissions name', () => {
    const service = findChain(businessRoutes, '/service/service').at(-1);
    const system = findChain(businessRoutes, '/system/takeIcon')[0];
    const history = findChain(businessRoutes, '/history/history')[0];
    expect(can(admin, service?.meta?.guard)).toBe(true);
    expect(can(agent, service?.meta?.guard)).toBe(false);
    expect(can(agent, system?.meta?.guard)).toBe(false);
    expect(can(agent, history?.meta?.guard)).toBe(true);
    expect(can({ roles: [], permissions: ['setPermissions:service'] }, service?.meta?.guard)).toBe(true);
  });

  it('supports lists (any of) and the object form with allOf, oneOf and except', () => {
    const editor = { roles: ['Editor'], permissions: ['read:system'] };
    expect(can(editor, ['Admin', 'Editor'])).toBe(true);
    expect(can(editor, ['Admin', 'write:system'])).toBe(false);
    expect(can(editor, { role: ['Editor'], mode: 'except' })).toBe(false);
    expect(can(editor, { role: ['Test'], mode: 'except' })).toBe(true);
    expect(can(editor, { permission: ['read:system', 'write:system'], mode: 'allOf' })).toBe(false);
    expect(can(editor, { permission: ['read:system', 'write:system'], mode: 'oneOf' })).toBe(true);
    expect(can(editor, undefined)).toBe(true);
  });
});

describe('menu derivation', () => {
  it('shows visible routes, replaces levelHidden ones by their children and nests submenus', () => {
    const menu = buildMenu(filterRoutes(businessRoutes, admin));
    const top = menu.map((node) => node.key);
    expect(top[0]).toBe('/index');
    expect(top).toContain('/workbench/workbench');
    expect(top).toContain('/service');
    expect(top).not.toContain('/workbench');
    const service = menu.find((node) => node.key === '/service');
    expect(service?.children?.map((node) => node.key)).toEqual([
      '/service/service',
      '/service/friendly',
      '/service/label',
      '/service/role',
      '/service/record',
      '/service/audit',
    ]);
    const all = keys(menu);
    expect(all).not.toContain('/user/userDetail');
    expect(all).not.toContain('/census/flow/source');
    expect(all).not.toContain('/robot/askRobot');
  });

  it('removes routes failing the guard, and parents left empty', () => {
    const menu = keys(buildMenu(filterRoutes(businessRoutes, agent)));
    expect(menu).toContain('/history/history');
    expect(menu).toContain('/workbench/workbench');
    expect(menu).not.toContain('/service');
    expect(menu).not.toContain('/system');
    expect(menu.length).toBeLessThan(keys(buildMenu(filterRoutes(businessRoutes, admin))).length);
  });

  it('treats a route with meta but only hidden children as a leaf, and skips routes without meta', () => {
    const routes = attachPages(
      [
        { path: '/a', name: 'A', meta: { title: 'a' }, children: [{ path: 'x', name: 'X', meta: { title: 'x', hidden: true } }] },
        { path: '/b', name: 'B' },
        { path: 'https://example.com', name: 'Ext', meta: { title: 'ext' } },
      ],
      {},
    );
    const menu = buildMenu(routes);
    expect(menu).toHaveLength(2);
    expect(menu[0]?.children).toBeUndefined();
    expect(menu[1]).toMatchObject({ key: 'https://example.com', external: true });
  });

  it('changeMenuMeta merges meta at any depth', () => {
    const changed = changeMenuMeta(businessRoutes, 'Letter', { badge: '3' });
    expect(findChain(changed, '/history/letter').at(-1)?.meta).toMatchObject({ title: 'letter', badge: '3' });
    expect(findChain(businessRoutes, '/history/letter').at(-1)?.meta?.badge).toBe('letter');
  });

  it('highlights the activeMenu parent for hidden pages and finds the first leaf', () => {
    expect(activeMenuKey(findChain(businessRoutes, '/user/userDetail'))).toBe('/user/user');
    const census = businessRoutes.find((route) => route.name === 'Census');
    expect(census && firstLeafPath(census)).toBe('/census/census');
  });
});

describe('breadcrumb and title', () => {
  it('skips breadcrumbHidden routes and repeated titles', () => {
    expect(breadcrumbOf(findChain(businessRoutes, '/index')).map((route) => route.meta?.title)).toEqual(['home']);
    expect(breadcrumbOf(findChain(businessRoutes, '/service/role')).map((route) => route.meta?.title)).toEqual(['serviceGroup', 'role']);
    expect(breadcrumbOf(findChain(businessRoutes, '/link/link')).map((route) => route.meta?.title)).toEqual(['link']);
  });

  it('joins page and site title with the separator, optionally reversed', () => {
    expect(buildTitle('Home', 'Parley', ' - ', false)).toBe('Home - Parley');
    expect(buildTitle('Home', 'Parley', ' | ', true)).toBe('Parley | Home');
    expect(buildTitle(undefined, 'Parley', ' - ', false)).toBe('Parley');
  });

  it('matches the protocol tree one to one', () => {
    expect(businessRoutes.map((route) => route.name)).toEqual(BUSINESS_ROUTES.map((route) => route.name));
  });
});
