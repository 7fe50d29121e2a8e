import type { Guard } from './access.js';
import { ADMIN_ROLE } from './permissions.js';
import { SETTINGS_PAGES, type SettingsPage } from './settings.js';

/** Route meta fields of the console (seed §2). `title` is a key of ROUTE_TITLES. */
export interface RouteMeta {
  title: string;
  icon?: string;
  hidden?: boolean;
  guard?: Guard;
  noColumn?: boolean;
  noClosable?: boolean;
  dynamicNewTab?: boolean;
  activeMenu?: string;
  badge?: string;
  breadcrumbHidden?: boolean;
  levelHidden?: boolean;
  noKeepAlive?: boolean;
  tabHidden?: boolean;
  isCustomSvg?: boolean;
}

export interface RouteRecord {
  path: string;
  name: string;
  redirect?: string;
  meta?: RouteMeta;
  children?: RouteRecord[];
}

/** Menu icons of the settings pages (names of the console's icon set). */
const SETTINGS_ICONS: Record<SettingsPage, string> = {
  takeIcon: 'CommentOutlined',
  floatNavigation: 'PushpinOutlined',
  region: 'EnvironmentOutlined',
  windowStyle: 'BgColorsOutlined',
  windowSetting: 'LayoutOutlined',
  quickReply: 'ThunderboltOutlined',
  softwareSetting: 'ToolOutlined',
  invitationBox: 'NotificationOutlined',
  weChatSetting: 'WechatOutlined',
  autoAnswer: 'RobotOutlined',
  desktopSetting: 'DesktopOutlined',
  appSetting: 'MobileOutlined',
};

function settingsRoutes(): RouteRecord[] {
  return SETTINGS_PAGES.map((page) => ({ path: page, name: `System_${page}`, meta: { title: page, icon: SETTINGS_ICONS[page] } }));
}

const perm = (permission: string): Guard => ({ permission: [permission], mode: 'oneOf' });
const admin: Guard = [ADMIN_ROLE];

/**
 * The business routes of the console, as data: the console attaches its pages to these names, the
 * server filters them by access for `/api/router/getList` and searches them for `/api/search/getList`.
 */
export const BUSINESS_ROUTES: RouteRecord[] = [
  {
    path: '/',
    name: 'Root',
    redirect: '/index',
    meta: { title: 'home', icon: 'HomeOutlined', breadcrumbHidden: true, levelHidden: true },
    children: [{ path: 'index', name: 'Index', meta: { title: 'home', icon: 'HomeOutlined', noClosable: true } }],
  },
  {
    path: '/workbench',
    name: 'Workbench',
    redirect: '/workbench/workbench',
    meta: { title: 'dialogue', icon: 'MessageOutlined', levelHidden: true },
    children: [
      {
        path: 'workbench',
        name: 'WorkbenchIndex',
        meta: { title: 'dialogue', icon: 'MessageOutlined', noKeepAlive: false, noColumn: true },
      },
    ],
  },
  {
    path: '/service',
    name: 'Service',
    redirect: '/service/service',
    meta: { title: 'serviceGroup', icon: 'TeamOutlined' },
    children: [
      {
        path: 'service',
        name: 'ServiceIndex',
        meta: { title: 'service', icon: 'CustomerServiceOutlined', guard: perm('setPermissions:service') },
      },
      { path: 'friendly', name: 'Friendly', meta: { title: 'friendly', icon: 'SmileOutlined', guard: perm('setPermissions:friendly') } },
      { path: 'label', name: 'Label', meta: { title: 'label', icon: 'TagsOutlined', guard: perm('setPermissions:service') } },
      { path: 'role', name: 'Role', meta: { title: 'role', icon: 'SafetyOutlined', guard: perm('setPermissions:roleManagement') } },
      {
        path: 'record',
        name: 'Record',
        meta: { title: 'record', icon: 'FileSearchOutlined', guard: perm('seePermissions:seeLoginRecord') },
      },
      { path: 'audit', name: 'Audit', meta: { title: 'audit', icon: 'AuditOutlined', guard: admin } },
    ],
  },
  {
    path: '/user',
    name: 'User',
    redirect: '/user/user',
    meta: { title: 'userGroup', icon: 'UserOutlined', guard: perm('seePermissions:seeVisitor') },
    children: [
      { path: 'user', name: 'UserIndex', meta: { title: 'user', icon: 'IdcardOutlined' } },
      { path: 'officialAccount', name: 'OfficialAccount', meta: { title: 'officialAccount', icon: 'WechatOutlined' } },
      { path: 'miniProgram', name: 'MiniProgram', meta: { title: 'miniProgram', icon: 'AppstoreOutlined' } },
      {
        path: 'userDetail',
        name: 'UserDetail',
        meta: { title: 'userDetail', hidden: true, dynamicNewTab: true, activeMenu: '/user/user' },
      },
    ],
  },
  {
    path: '/census',
    name: 'Census',
    redirect: '/census/census',
    meta: { title: 'census', icon: 'BarChartOutlined', levelHidden: true, guard: perm('seePermissions:statistics') },
    children: [
      { path: 'census', name: 'CensusIndex', meta: { title: 'census', icon: 'BarChartOutlined' } },
      ...(['source', 'engine', 'area', 'keyword', 'platform'] as const).flatMap((dim) => [
        { path: `flow/${dim}`, name: `Flow_${dim}`, meta: { title: `flow_${dim}`, hidden: true, activeMenu: '/census/census' } },
        { path: `talk/${dim}`, name: `Talk_${dim}`, meta: { title: `talk_${dim}`, hidden: true, activeMenu: '/census/census' } },
      ]),
      { path: 'talk/label', name: 'Talk_label', meta: { title: 'talk_label', hidden: true, activeMenu: '/census/census' } },
      { path: 'talk/channel', name: 'Talk_channel', meta: { title: 'talk_channel', hidden: true, activeMenu: '/census/census' } },
      ...(['talk', 'evaluate', 'state'] as const).map((kind) => ({
        path: `service/${kind}`,
        name: `ServiceCensus_${kind}`,
        meta: { title: `serviceCensus_${kind}`, hidden: true, activeMenu: '/census/census' },
      })),
    ],
  },
  {
    path: '/history',
    name: 'History',
    redirect: '/history/history',
    meta: { title: 'historyGroup', icon: 'HistoryOutlined', guard: perm('seePermissions:seeHistorical') },
    children: [
      { path: 'history', name: 'HistoryIndex', meta: { title: 'history', icon: 'HistoryOutlined' } },
      {
        path: 'historyDetail',
        name: 'HistoryDetail',
        meta: { title: 'historyDetail', hidden: true, dynamicNewTab: true, activeMenu: '/history/history' },
      },
      { path: 'letter', name: 'Letter', meta: { title: 'letter', icon: 'MailOutlined', badge: 'letter' } },
    ],
  },
  {
    path: '/link',
    name: 'Link',
    redirect: '/link/link',
    meta: { title: 'link', icon: 'LinkOutlined', levelHidden: true, guard: perm('seePermissions:link') },
    children: [{ path: 'link', name: 'LinkIndex', meta: { title: 'link', icon: 'LinkOutlined' } }],
  },
  {
    path: '/robot',
    name: 'Robot',
    redirect: '/robot/robot',
    meta: { title: 'robot', icon: 'RobotOutlined', levelHidden: true, guard: perm('setPermissions:robotSettings') },
    children: [
      { path: 'robot', name: 'RobotIndex', meta: { title: 'robot', icon: 'RobotOutlined' } },
      { path: 'askRobot', name: 'AskRobot', meta: { title: 'askRobot', hidden: true, activeMenu: '/robot/robot' } },
      { path: 'highRobot', name: 'HighRobot', meta: { title: 'highRobot', hidden: true, activeMenu: '/robot/robot' } },
    ],
  },
  {
    path: '/system',
    name: 'System',
    redirect: '/system/takeIcon',
    meta: { title: 'system', icon: 'SettingOutlined', guard: admin },
    children: settingsRoutes(),
  },
  {
    path: '/personal',
    name: 'Personal',
    redirect: '/personal/personal',
    meta: { title: 'personal', icon: 'UserSwitchOutlined', levelHidden: true, guard: admin },
    children: [{ path: 'personal', name: 'PersonalIndex', meta: { title: 'personal', icon: 'UserSwitchOutlined' } }],
  },
  {
    path: '/access',
    name: 'Access',
    redirect: '/access/access',
    meta: { title: 'access', icon: 'ApiOutlined', levelHidden: true, guard: perm('setPermissions:access') },
    children: [{ path: 'access', name: 'AccessIndex', meta: { title: 'access', icon: 'ApiOutlined' } }],
  },
];

/** Menu titles in both languages; the console merges them into its locales. */
export const ROUTE_TITLES: Record<string, { zh: string; en: string }> = {
  home: { zh: '首页', en: 'Home' },
  dialogue: { zh: '对话', en: 'Dialogue' },
  serviceGroup: { zh: '客服', en: 'Agents' },
  service: { zh: '客服管理', en: 'Agents' },
  friendly: { zh: '友好联系人', en: 'Friendly contacts' },
  label: { zh: '对话标签', en: 'Conversation labels' },
  role: { zh: '角色管理', en: 'Roles' },
  record: { zh: '登录日志', en: 'Login log' },
  audit: { zh: '操作日志', en: 'Audit log' },
  userGroup: { zh: '访客', en: 'Visitors' },
  user: { zh: '档案用户', en: 'Archived visitors' },
  officialAccount: { zh: '公众号访客', en: 'Official-account visitors' },
  miniProgram: { zh: '小程序访客', en: 'Mini-program visitors' },
  userDetail: { zh: '访客详情', en: 'Visitor detail' },
  census: { zh: '统计', en: 'Statistics' },
  flow_source: { zh: '访客来源', en: 'Traffic by source' },
  flow_engine: { zh: '访客搜索引擎', en: 'Traffic by search engine' },
  flow_area: { zh: '访客地区', en: 'Traffic by region' },
  flow_keyword: { zh: '访客关键词', en: 'Traffic by keyword' },
  flow_platform: { zh: '访客设备', en: 'Traffic by device' },
  talk_source: { zh: '对话来源', en: 'Conversations by source' },
  talk_engine: { zh: '对话搜索引擎', en: 'Conversations by search engine' },
  talk_area: { zh: '对话地区', en: 'Conversations by region' },
  talk_keyword: { zh: '对话关键词', en: 'Conversations by keyword' },
  talk_platform: { zh: '对话设备', en: 'Conversations by device' },
  talk_label: { zh: '对话标签', en: 'Conversations by label' },
  talk_channel: { zh: '对话渠道', en: 'Conversations by channel' },
  serviceCensus_talk: { zh: '对话量', en: 'Conversation volume' },
  serviceCensus_evaluate: { zh: '评价', en: 'Ratings' },
  serviceCensus_state: { zh: '客服状态', en: 'Agent status' },
  historyGroup: { zh: '历史', en: 'History' },
  history: { zh: '历史记录', en: 'History records' },
  historyDetail: { zh: '历史详情', en: 'History detail' },
  letter: { zh: '留言记录', en: 'Leave messages' },
  link: { zh: '链接配置', en: 'Links' },
  robot: { zh: '机器人', en: 'Robots' },
  askRobot: { zh: '问答机器人', en: 'Question-answer robot' },
  highRobot: { zh: '智能机器人', en: 'Smart robot' },
  system: { zh: '设置', en: 'Settings' },
  takeIcon: { zh: '咨询图标', en: 'Launcher icon' },
  floatNavigation: { zh: '浮动导航', en: 'Floating navigation' },
  region: { zh: '地区设置', en: 'Regions' },
  windowStyle: { zh: '窗口样式', en: 'Window style' },
  windowSetting: { zh: '窗口设置', en: 'Window settings' },
  quickReply: { zh: '快捷回复', en: 'Quick replies' },
  softwareSetting: { zh: '软件设置', en: 'Software settings' },
  invitationBox: { zh: '邀请框', en: 'Invitation box' },
  weChatSetting: { zh: '微信设置', en: 'WeChat settings' },
  autoAnswer: { zh: '自动应答', en: 'Auto answers' },
  desktopSetting: { zh: '桌面设置', en: 'Desktop settings' },
  appSetting: { zh: '应用设置', en: 'App settings' },
  personal: { zh: '个人设置', en: 'Personal settings' },
  access: { zh: '接入', en: 'Integration' },
  login: { zh: '登录', en: 'Sign in' },
  register: { zh: '注册', en: 'Register' },
  authLogin: { zh: '第三方登录', en: 'Social sign-in' },
  callback: { zh: '登录回调', en: 'Sign-in callback' },
  forbidden: { zh: '无权限', en: 'Forbidden' },
  notFound: { zh: '页面不存在', en: 'Page not found' },
  demo: { zh: '组件示例', en: 'Samples' },
  demoTable: { zh: '表格示例', en: 'Table sample' },
  demoIcon: { zh: '图标示例', en: 'Icon sample' },
  noColumn: { zh: '无分栏页面', en: 'No-column page' },
  externalLink: { zh: '外部链接', en: 'External link' },
  mall: { zh: '商城示例', en: 'Mall sample' },
  goods: { zh: '商品列表', en: 'Goods' },
  other: { zh: '其他示例', en: 'Other samples' },
  workflow: { zh: '工作流', en: 'Workflow' },
  setting: { zh: '系统管理示例', en: 'System admin sample' },
  userManagement: { zh: '用户管理', en: 'User management' },
  roleManagement: { zh: '角色权限', en: 'Roles and permissions' },
  departmentManagement: { zh: '部门管理', en: 'Department management' },
  menuManagement: { zh: '菜单管理', en: 'Menu management' },
  systemLog: { zh: '系统日志', en: 'System log' },
  error: { zh: '错误页', en: 'Error pages' },
  error403: { zh: '403 页面', en: '403 page' },
  error404: { zh: '404 页面', en: '404 page' },
};

/** Full paths of a route tree's leaves joined with their parents. */
export function joinPath(parent: string, child: string): string {
  if (child.startsWith('/')) return child;
  return `${parent.replace(/\/$/, '')}/${child}`;
}
