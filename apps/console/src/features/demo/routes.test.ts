import { ADMIN_ROLE, BUSINESS_ROUTES, ROUTE_TITLES, type RouteRecord } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { ICON_NAMES } from '../../app/icons';
import { attachPages, buildMenu, filterRoutes, isExternal } from '../../app/routeTree';
import zh from '../../locales/zh.json';
import { attachBusinessPages } from '../../routes';
import { filterTree, matches, menuRows } from './listKit';
import { departmentTree, goodsItems, ROLE_PERMISSIONS, WORKFLOW } from './mock';
import { DEMO_ROUTES } from './routes';

const tree = attachPages(DEMO_ROUTES, {});

function leaves(records: RouteRecord[]): RouteRecord[] {
  return records.flatMap((record) => (record.children?.length ? leaves(record.children) : [record]));
}

function all(records: RouteRecord[]): RouteRecord[] {
  return records.flatMap((record) => [record, ...all(record.children ?? [])]);
}

const titles = (lang: 'zh' | 'en'): Record<string, string> =>
  Object.fromEntries(Object.entries(ROUTE_TITLES).map(([key, value]) => [key, value[lang]]));

describe('demo routes', () => {
  it('are for administrators; an editor sees only the external link', () => {
    const admin = buildMenu(filterRoutes(tree, { roles: [ADMIN_ROLE], permissions: [] }));
    expect(admin.map((node) => node.key)).toEqual([
      '/vab',
      '/noColumn/noColumn',
      '/mall',
      '/other',
      '/setting',
      '/error',
      'https://github.com/search?q=live+chat',
    ]);
    const editor = buildMenu(filterRoutes(tree, { roles: ['Editor'], permissions: [] }));
    expect(editor).toEqual([expect.objectContaining({ external: true, title: 'externalLink' })]);
  });

  it('exclude editors from the table sample even inside the group (mode except)', () => {
    const group = filterRoutes(tree, { roles: ['Editor'], permissions: [] }).find((route) => route.name === 'Vab');
    expect(group).toBeUndefined();
    const table = tree[0]?.children?.[0];
    expect(table?.meta?.guard).toEqual({ role: ['Editor'], mode: 'except' });
  });

  it('give every route a unique name, a title in both languages and a known icon', () => {
    const names = all([...BUSINESS_ROUTES, ...DEMO_ROUTES]).map((record) => record.name);
    expect(new Set(names).size).toBe(names.length);
    for (const record of all(DEMO_ROUTES)) {
      expect(titles('zh')[record.meta?.title ?? ''], record.name).toBeTruthy();
      expect(titles('en')[record.meta?.title ?? ''], record.name).toBeTruthy();
      if (record.meta?.icon) expect(ICON_NAMES, record.name).toContain(record.meta.icon);
    }
  });

  it('attach a real page to every leaf (the not-available placeholder would mean a missing PAGES entry)', () => {
    const attached = all(attachBusinessPages(DEMO_ROUTES) as RouteRecord[]);
    const placeholder = attachBusinessPages([{ path: '/x', name: 'NoSuchPage', meta: { title: 'x' } }])[0]?.page;
    for (const record of leaves(DEMO_ROUTES).filter((leaf) => !isExternal(leaf.path))) {
      const route = attached.find((item) => item.name === record.name) as { page?: unknown } | undefined;
      expect(route?.page, record.name).toBeDefined();
      expect(route?.page, record.name).not.toBe(placeholder);
    }
  });
});

describe('demo mock data', () => {
  it('has the seven goods and a workflow whose edges join its nodes', () => {
    expect(goodsItems()).toHaveLength(7);
    expect(goodsItems()).toEqual(goodsItems());
    const ids = new Set(WORKFLOW.nodes.map((node) => node.id));
    for (const edge of WORKFLOW.edges) {
      expect(ids.has(edge.sourceNodeId) && ids.has(edge.targetNodeId)).toBe(true);
      expect(
        `demo.workflow.edges.${edge.text ?? 'Y'}`.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], zh),
      ).toBeTruthy();
    }
    for (const node of WORKFLOW.nodes)
      expect(zh.demo.workflow.nodes[node.text as keyof typeof zh.demo.workflow.nodes], node.text).toBeTruthy();
  });

  it('gives the editor read and write but not delete', () => {
    expect(ROLE_PERMISSIONS.find((role) => role.role === 'editor')?.permissions).toEqual(['read:system', 'write:system']);
    expect(ROLE_PERMISSIONS.find((role) => role.role === 'admin')?.permissions).toContain('delete:system');
  });

  it('filters trees keeping the ancestors of matches', () => {
    const found = filterTree(departmentTree(), (node) => matches('night', node.name));
    expect(found).toHaveLength(1);
    expect(found[0]?.children?.map((child) => child.name)).toEqual(['Customer service']);
    expect(found[0]?.children?.[0]?.children?.map((child) => child.name)).toEqual(['Night shift']);
    expect(filterTree(departmentTree(), (node) => matches('', node.name))).toEqual(departmentTree());
  });

  it('lists the route tree for menu management with unique full paths', () => {
    const rows = menuRows(attachBusinessPages([...BUSINESS_ROUTES, ...DEMO_ROUTES]));
    const paths = all(rows as unknown as RouteRecord[]).map((row) => row.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths).toContain('/setting/menuManagement');
    expect(paths).toContain('https://github.com/search?q=live+chat');
  });
});
