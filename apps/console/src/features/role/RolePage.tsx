import { can, grantable, PERMISSION_LABELS, PERMISSIONS, type Permission, type Role, roleEditBody } from '@parley/protocol';
import { Checkbox, Space, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { useAccess } from '../../lib/access';
import { currentLanguage } from '../../lib/format';
import { type Field, ListPage } from '../shared/ListPage';

const BUILTIN = ['Admin', 'Agent'];
const MANAGE = { permission: ['setPermissions:roleManagement'] };

function Permissions({ role }: { role: Role }) {
  const { t } = useTranslation();
  const lang = currentLanguage();
  if (role.name === 'Admin') return <Tag color="gold">{t('role.allPermissions')}</Tag>;
  if (role.permissions.length === 0) return <span className="muted">{t('role.noPermissions')}</span>;
  return (
    <Space size={[4, 4]} wrap>
      {role.permissions.map((item) => (
        <Tag key={item} color="blue">
          {PERMISSION_LABELS[item as Permission]?.[lang] ?? item}
        </Tag>
      ))}
    </Space>
  );
}

function RoleName({ role }: { role: Role }) {
  const { t } = useTranslation();
  return (
    <Space>
      <span>{role.name}</span>
      {role.builtin && <Tag>{t('role.builtin')}</Tag>}
    </Space>
  );
}

export default function RolePage() {
  const access = useAccess();
  // The server refuses what the user may not grant (CONTRACT §3); the page offers only the rest.
  const mayManage = (role: Role) => grantable(access, { roles: [role.name], permissions: role.permissions });
  const mayGive = (permission: Permission) => grantable(access, { roles: [], permissions: [permission] });
  const lang = currentLanguage();
  const fields: Field<Role>[] = [
    {
      key: 'name',
      label: 'role.name',
      in: ['search', 'column', 'form'],
      width: 180,
      render: (role) => <RoleName role={role} />,
      disabled: (role) => BUILTIN.includes(role?.name ?? ''),
    },
    {
      key: 'permissions',
      label: 'role.permissions',
      in: ['column', 'form'],
      render: (role) => <Permissions role={role} />,
      input: () => (
        <Checkbox.Group
          className="permission-grid"
          options={PERMISSIONS.map((item) => ({ value: item, label: PERMISSION_LABELS[item][lang], disabled: !mayGive(item) }))}
        />
      ),
    },
    { key: 'agents', label: 'role.agents', kind: 'number', in: ['column'], width: 100, sorter: true },
    { key: 'created_at', label: 'common.createdAt', kind: 'date', in: ['column'], width: 190 },
  ];
  return (
    <ListPage
      area="role"
      fields={fields}
      schema={roleEditBody}
      titles={{ create: 'role.createTitle', edit: 'role.editTitle' }}
      manage={can(access, MANAGE)}
      rowManageable={mayManage}
      deleteBlocked={(role) => (role.builtin ? 'role.builtinHint' : undefined)}
      initial={() => ({ name: '', permissions: [] })}
      toForm={(role) => ({
        name: role.name,
        permissions: role.permissions.filter((item) => (PERMISSIONS as readonly string[]).includes(item)),
      })}
      formWidth={560}
    />
  );
}
