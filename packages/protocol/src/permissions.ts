/** The role that holds every permission, whatever its stored list says. */
export const ADMIN_ROLE = 'Admin';
/** The role given to ordinary agents on first start: workbench and history. */
export const AGENT_ROLE = 'Agent';

/** Permission names exactly as the console's guards spell them. */
export const PERMISSIONS = [
  'setPermissions:service',
  'setPermissions:friendly',
  'setPermissions:roleManagement',
  'seePermissions:seeLoginRecord',
  'seePermissions:seeVisitor',
  'seePermissions:statistics',
  'seePermissions:seeHistorical',
  'seePermissions:link',
  'setPermissions:robotSettings',
  'setPermissions:access',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** zh and en labels of each permission, for the role editor. */
export const PERMISSION_LABELS: Record<Permission, { zh: string; en: string }> = {
  'setPermissions:service': { zh: '客服管理', en: 'Manage agents' },
  'setPermissions:friendly': { zh: '友好联系人', en: 'Friendly contacts' },
  'setPermissions:roleManagement': { zh: '角色管理', en: 'Manage roles' },
  'seePermissions:seeLoginRecord': { zh: '查看登录日志', en: 'View login log' },
  'seePermissions:seeVisitor': { zh: '查看访客档案', en: 'View visitors' },
  'seePermissions:statistics': { zh: '查看统计', en: 'View statistics' },
  'seePermissions:seeHistorical': { zh: '查看历史记录', en: 'View history' },
  'seePermissions:link': { zh: '链接配置', en: 'Links' },
  'setPermissions:robotSettings': { zh: '机器人设置', en: 'Robot settings' },
  'setPermissions:access': { zh: '接入集成', en: 'Integration' },
};
