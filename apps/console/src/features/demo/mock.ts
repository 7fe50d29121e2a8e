export type DemoStatus = 'published' | 'draft' | 'deleted';

export interface DemoItem {
  id: number;
  title: string;
  author: string;
  status: DemoStatus;
  pageViews: number;
  percent: number;
  datetime: string;
}

const STATUSES: DemoStatus[] = ['published', 'draft', 'deleted'];
const AUTHORS = ['Ada', 'Lin', 'Grace', 'Wei', 'Alan', 'Mei'];

/** Seed §9: 50 mock rows, page views 300-5000, percent 80-99; deterministic so screenshots compare. */
export function demoItems(count = 50): DemoItem[] {
  let seed = 7;
  const next = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    title: `Sample article ${index + 1}`,
    author: AUTHORS[Math.floor(next() * AUTHORS.length)] ?? 'Ada',
    status: STATUSES[Math.floor(next() * STATUSES.length)] ?? 'draft',
    pageViews: 300 + Math.floor(next() * 4701),
    percent: 80 + Math.floor(next() * 20),
    datetime: new Date(start + Math.floor(next() * 300) * 86_400_000).toISOString(),
  }));
}

/** The same Park-Miller sequence as above, so every list below is the same on every load. */
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 16807) % 2147483647;
    return state / 2147483647;
  };
}

function pick<T>(items: readonly T[], value: number): T {
  return items[Math.floor(value * items.length) % items.length] as T;
}

/** A fixed-looking UUID drawn from the sequence (sample data, not unique beyond this list). */
function uuid(next: () => number): string {
  const hex = (length: number) =>
    Array.from({ length }, () =>
      Math.floor(next() * 16)
        .toString(16)
        .toLowerCase(),
    ).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
}

function day(start: number, next: () => number, days = 300): string {
  return new Date(start + Math.floor(next() * days * 86_400) * 1000).toISOString();
}

export interface GoodsItem {
  uuid: string;
  /** A name of the console's icon set. */
  icon: string;
  image: string;
  title: string;
  price: number;
  label: string[];
  company: string;
  url: string;
  description: string;
}

function cover(color: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="160"><rect width="320" height="160" fill="${color}"/><circle cx="160" cy="80" r="44" fill="#ffffff" fill-opacity="0.35"/></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

const GOODS: Array<Omit<GoodsItem, 'uuid' | 'image' | 'url'> & { color: string }> = [
  {
    icon: 'MessageOutlined',
    title: 'Chat widget Pro',
    price: 199,
    label: ['Chat', 'Hot'],
    company: 'Parley Labs',
    color: '#1677ff',
    description: 'A chat window for any website, with quick replies and file transfer.',
  },
  {
    icon: 'RobotOutlined',
    title: 'Answer robot',
    price: 299,
    label: ['Robot', 'New'],
    company: 'Parley Labs',
    color: '#13c2c2',
    description: 'Answers common questions around the clock and hands over to an agent.',
  },
  {
    icon: 'BarChartOutlined',
    title: 'Insight reports',
    price: 99,
    label: ['Statistics'],
    company: 'Northwind Data',
    color: '#722ed1',
    description: 'Daily traffic, conversation and rating reports for every team.',
  },
  {
    icon: 'WechatOutlined',
    title: 'WeChat connector',
    price: 149,
    label: ['WeChat', 'Channel'],
    company: 'Bridge & Co',
    color: '#52c41a',
    description: 'Receive official-account and mini-program visitors in one workbench.',
  },
  {
    icon: 'MobileOutlined',
    title: 'Mobile agent app',
    price: 79,
    label: ['Mobile'],
    company: 'Pocket Works',
    color: '#fa8c16',
    description: 'Reply to visitors on the go, with push notifications.',
  },
  {
    icon: 'DesktopOutlined',
    title: 'Desktop notifier',
    price: 39,
    label: ['Desktop', 'Free trial'],
    company: 'Pocket Works',
    color: '#eb2f96',
    description: 'A tray icon that rings when a visitor starts a conversation.',
  },
  {
    icon: 'ApiOutlined',
    title: 'Open API pack',
    price: 499,
    label: ['API', 'Enterprise'],
    company: 'Northwind Data',
    color: '#2f54eb',
    description: 'Webhooks and REST access to conversations, visitors and records.',
  },
];

/** Seed §9: the seven goods of the mall sample. */
export function goodsItems(): GoodsItem[] {
  const next = sequence(11);
  return GOODS.map(({ color, ...item }, index) => ({
    ...item,
    uuid: uuid(next),
    image: cover(color),
    url: `https://example.com/goods/${index + 1}`,
  }));
}

export type WorkflowNodeType = 'start' | 'rect' | 'user' | 'push' | 'download' | 'end';

export interface WorkflowNode {
  id: string;
  type: WorkflowNodeType;
  x: number;
  y: number;
  /** A key of the demo.workflow.nodes locale section. */
  text: string;
}

export interface WorkflowEdge {
  type: 'polyline';
  sourceNodeId: string;
  targetNodeId: string;
  text?: 'Y' | 'N';
}

/** Seed §9: the sample approval flow, positions in SVG units (centre of each node). */
export const WORKFLOW: { nodes: WorkflowNode[]; edges: WorkflowEdge[] } = {
  nodes: [
    { id: 'n1', type: 'start', x: 60, y: 180, text: 'start' },
    { id: 'n2', type: 'rect', x: 190, y: 180, text: 'apply' },
    { id: 'n3', type: 'user', x: 350, y: 180, text: 'approve' },
    { id: 'n4', type: 'push', x: 520, y: 80, text: 'notify' },
    { id: 'n5', type: 'download', x: 520, y: 280, text: 'archive' },
    { id: 'n6', type: 'end', x: 670, y: 180, text: 'end' },
  ],
  edges: [
    { type: 'polyline', sourceNodeId: 'n1', targetNodeId: 'n2' },
    { type: 'polyline', sourceNodeId: 'n2', targetNodeId: 'n3' },
    { type: 'polyline', sourceNodeId: 'n3', targetNodeId: 'n4', text: 'Y' },
    { type: 'polyline', sourceNodeId: 'n3', targetNodeId: 'n5', text: 'N' },
    { type: 'polyline', sourceNodeId: 'n4', targetNodeId: 'n6' },
    { type: 'polyline', sourceNodeId: 'n5', targetNodeId: 'n6' },
  ],
};

export const DEMO_ROLES = ['admin', 'editor'] as const;
export type DemoRole = (typeof DEMO_ROLES)[number];

export interface DemoUser {
  id: number;
  username: string;
  email: string;
  roles: DemoRole[];
  datetime: string;
}

const NAMES = ['ada', 'lin', 'grace', 'wei', 'alan', 'mei', 'yan', 'tom', 'li', 'sara'];

/** Seed §9: mock users of the user-management sample. */
export function demoUsers(count = 45): DemoUser[] {
  const next = sequence(23);
  const start = Date.UTC(2025, 6, 1);
  return Array.from({ length: count }, (_, index) => {
    const username = `${pick(NAMES, next())}${index + 1}`;
    const roles: DemoRole[] = index === 0 ? ['admin'] : next() < 0.3 ? ['admin', 'editor'] : ['editor'];
    return { id: index + 1, username, email: `${username}@example.com`, roles, datetime: day(start, next) };
  });
}

export interface DemoRoleRecord {
  role: DemoRole;
  permissions: string[];
}

/** Seed §9: the two sample roles; an editor may read and write but not delete. */
export const ROLE_PERMISSIONS: DemoRoleRecord[] = [
  { role: 'admin', permissions: ['read:system', 'write:system', 'delete:system'] },
  { role: 'editor', permissions: ['read:system', 'write:system'] },
];

export type LogType = 'operation' | 'database' | 'system';
export type LogResult = 'loginSuccess' | 'loginFailure' | 'interfaceException' | 'attack';

export interface SystemLog {
  uuid: string;
  id: number;
  account: string;
  type: LogType;
  executeResult: LogResult;
  ip: string;
  datetime: string;
}

const LOG_TYPES: LogType[] = ['operation', 'database', 'system'];
const LOG_RESULTS: LogResult[] = ['loginSuccess', 'loginFailure', 'interfaceException', 'attack'];

/** Seed §9: mock rows of the system-log sample. */
export function systemLogs(count = 60): SystemLog[] {
  const next = sequence(31);
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, index) => ({
    uuid: uuid(next),
    id: index + 1,
    account: pick(['admin', 'editor', ...NAMES], next()),
    type: pick(LOG_TYPES, next()),
    executeResult: pick(LOG_RESULTS, next()),
    ip: `192.168.${Math.floor(next() * 256)}.${1 + Math.floor(next() * 254)}`,
    datetime: day(start, next, 90),
  }));
}

export interface Department {
  id: number;
  parentId: number;
  parentName: string;
  createTime: string;
  name: string;
  order: number;
  children?: Department[];
}

type DepartmentSeed = [name: string, children?: DepartmentSeed[]];

const DEPARTMENTS: DepartmentSeed = [
  'Parley HQ',
  [
    ['Research & Development', [['Console team'], ['Server team'], ['Widget team']]],
    ['Customer service', [['Pre-sales'], ['After-sales'], ['Night shift']]],
    ['Marketing', [['Content'], ['Events']]],
    ['Finance'],
  ],
];

/** Seed §9: the sample department tree, ids in depth-first order. */
export function departmentTree(): Department[] {
  let id = 0;
  const start = Date.UTC(2024, 2, 1);
  const build = ([name, children]: DepartmentSeed, parent: Department | undefined, order: number): Department => {
    id += 1;
    const node: Department = {
      id,
      parentId: parent?.id ?? 0,
      parentName: parent?.name ?? '',
      createTime: new Date(start + id * 7 * 86_400_000).toISOString(),
      name,
      order,
    };
    if (children) node.children = children.map((child, index) => build(child, node, index + 1));
    return node;
  };
  return [build(DEPARTMENTS, undefined, 1)];
}
