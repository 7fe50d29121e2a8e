import { Table, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../lib/format';
import { DemoList } from './DemoList';
import { demoPagination, matches } from './listKit';
import { type DemoUser, demoUsers } from './mock';

/** Sample content (VITE_PARLEY_DEMO=1 only): the template's user management over mock users. */
export default function UserManagementPage() {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const users = useMemo(() => demoUsers(), []);
  const shown = users.filter((user) => matches(keyword, user.username, user.email));
  return (
    <DemoList testId="demo-users" placeholder={t('demo.user.search')} onSearch={setKeyword}>
      <Table<DemoUser>
        rowKey="id"
        dataSource={shown}
        scroll={{ x: 760 }}
        pagination={demoPagination()}
        columns={[
          { title: 'ID', dataIndex: 'id', width: 80 },
          { title: t('demo.user.username'), dataIndex: 'username' },
          { title: t('demo.user.email'), dataIndex: 'email' },
          {
            title: t('demo.user.roles'),
            dataIndex: 'roles',
            render: (roles: DemoUser['roles']) =>
              roles.map((role) => (
                <Tag key={role} color={role === 'admin' ? 'gold' : 'blue'}>
                  {t(`demo.role.names.${role}`)}
                </Tag>
              )),
          },
          { title: t('demo.datetime'), dataIndex: 'datetime', width: 190, render: (value: string) => formatDateTime(value) },
        ]}
      />
    </DemoList>
  );
}
