import { Table, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DemoList } from './DemoList';
import { demoPagination, matches } from './listKit';
import { type DemoRoleRecord, ROLE_PERMISSIONS } from './mock';

const COLORS: Record<string, string> = { read: 'green', write: 'blue', delete: 'red' };

/** Sample content (VITE_PARLEY_DEMO=1 only): the template's roles, admin and editor, and their permissions. */
export default function RoleManagementPage() {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const shown = ROLE_PERMISSIONS.filter((record) =>
    matches(keyword, record.role, t(`demo.role.names.${record.role}`), ...record.permissions),
  );
  return (
    <DemoList testId="demo-roles" placeholder={t('demo.role.search')} onSearch={setKeyword}>
      <Table<DemoRoleRecord>
        rowKey="role"
        dataSource={shown}
        pagination={demoPagination()}
        columns={[
          { title: t('demo.role.role'), dataIndex: 'role', width: 160 },
          {
            title: t('demo.role.name'),
            dataIndex: 'role',
            width: 160,
            render: (role: DemoRoleRecord['role']) => t(`demo.role.names.${role}`),
          },
          {
            title: t('demo.role.permissions'),
            dataIndex: 'permissions',
            render: (permissions: string[]) =>
              permissions.map((permission) => (
                <Tag key={permission} color={COLORS[permission.split(':')[0] ?? '']}>
                  {permission}
                </Tag>
              )),
          },
        ]}
      />
    </DemoList>
  );
}
