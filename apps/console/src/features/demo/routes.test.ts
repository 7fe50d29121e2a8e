import { ADMIN_ROLE } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { attachPages, buildMenu, filterRoutes } from '../../app/routeTree';
import { DEMO_ROUTES } from './routes';

const tree = attachPages(DEMO_ROUTES, {});

describe('demo routes', () => {
  it('are for administrators; an editor sees only the external link', () => {
    const admin = buildMenu(filterRoutes(tree, { roles: [ADMIN_ROLE], permissions: [] }));
    expect(admin.map((node) => node.key)).toEqual(['/vab', '/noColumn/noColumn', 'https://github.com/search?q=live+chat']);
    const editor = buildMenu(filterRoutes(tree, { roles: ['Editor'], permissions: [] }));
    expect(editor).toEqual([expect.objectContaining({ external: true, title: 'externalLink' })]);
  });

  it('exclude editors from the table sample even inside the group (mode except)', () => {
    const group = filterRoutes(tree, { roles: ['Editor'], permissions: [] }).find((route) => route.name === 'Vab');
    expect(group).toBeUndefined();
    const table = tree[0]?.children?.[0];
    expect(table?.meta?.guard).toEqual({ role: ['Editor'], mode: 'except' });
  });
});
