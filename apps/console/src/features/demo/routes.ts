import { ADMIN_ROLE, type RouteRecord } from '@parley/protocol';

/**
 * The template's sample pages (seed §2 demo routes): mock content only, shown when the console is
 * built with VITE_PARLEY_DEMO=1 so the guards, noColumn and external links can be tried out.
 */
export const DEMO_ROUTES: RouteRecord[] = [
  {
    path: '/vab',
    name: 'Vab',
    redirect: '/vab/table',
    meta: { title: 'demo', icon: 'ExperimentOutlined', guard: [ADMIN_ROLE] },
    children: [
      {
        path: 'table',
        name: 'DemoTable',
        meta: { title: 'demoTable', icon: 'TableOutlined', guard: { role: ['Editor'], mode: 'except' } },
      },
      { path: 'icon', name: 'DemoIcon', meta: { title: 'demoIcon', icon: 'AppstoreOutlined' } },
    ],
  },
  {
    path: '/noColumn',
    name: 'NoColumn',
    redirect: '/noColumn/noColumn',
    meta: { title: 'noColumn', icon: 'ColumnWidthOutlined', levelHidden: true, guard: [ADMIN_ROLE] },
    children: [{ path: 'noColumn', name: 'NoColumnIndex', meta: { title: 'noColumn', icon: 'ColumnWidthOutlined', noColumn: true } }],
  },
  {
    path: 'https://github.com/search?q=live+chat',
    name: 'ExternalLink',
    meta: { title: 'externalLink', icon: 'LinkOutlined', guard: [ADMIN_ROLE, 'Editor'] },
  },
];
