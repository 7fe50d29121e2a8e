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
    path: '/mall',
    name: 'Mall',
    redirect: '/mall/goods',
    meta: { title: 'mall', icon: 'ShoppingOutlined', guard: [ADMIN_ROLE] },
    children: [{ path: 'goods', name: 'Goods', meta: { title: 'goods', icon: 'ShoppingOutlined' } }],
  },
  {
    path: '/other',
    name: 'Other',
    redirect: '/other/workflow',
    meta: { title: 'other', icon: 'AppstoreOutlined', guard: [ADMIN_ROLE] },
    children: [{ path: 'workflow', name: 'Workflow', meta: { title: 'workflow', icon: 'ApartmentOutlined' } }],
  },
  {
    path: '/setting',
    name: 'Setting',
    redirect: '/setting/userManagement',
    meta: { title: 'setting', icon: 'ControlOutlined', guard: [ADMIN_ROLE] },
    children: [
      { path: 'userManagement', name: 'UserManagement', meta: { title: 'userManagement', icon: 'UserOutlined' } },
      { path: 'roleManagement', name: 'RoleManagement', meta: { title: 'roleManagement', icon: 'SafetyOutlined' } },
      { path: 'departmentManagement', name: 'DepartmentManagement', meta: { title: 'departmentManagement', icon: 'ApartmentOutlined' } },
      { path: 'menuManagement', name: 'MenuManagement', meta: { title: 'menuManagement', icon: 'MenuOutlined' } },
      { path: 'systemLog', name: 'SystemLog', meta: { title: 'systemLog', icon: 'FileSearchOutlined' } },
    ],
  },
  {
    path: '/error',
    name: 'Error',
    redirect: '/error/403',
    meta: { title: 'error', icon: 'WarningOutlined', guard: [ADMIN_ROLE] },
    children: [
      { path: '403', name: 'Error403', meta: { title: 'error403', icon: 'StopOutlined' } },
      { path: '404', name: 'Error404', meta: { title: 'error404', icon: 'FileSearchOutlined' } },
    ],
  },
  {
    path: 'https://github.com/search?q=live+chat',
    name: 'ExternalLink',
    meta: { title: 'externalLink', icon: 'LinkOutlined', guard: [ADMIN_ROLE, 'Editor'] },
  },
];
