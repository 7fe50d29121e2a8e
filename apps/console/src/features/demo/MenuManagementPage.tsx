import { Table, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBusinessRoutes } from '../../app/businessRoutes';
import { RouteIcon } from '../../app/icons';
import { routeTitle } from '../../lib/i18n';
import { DemoList } from './DemoList';
import { demoPagination, filterTree, type MenuRow, matches, menuRows } from './listKit';

/** Sample content (VITE_PARLEY_DEMO=1 only): menu management, read-only, over the console's route tree. */
export default function MenuManagementPage() {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const { routes } = useBusinessRoutes();
  const rows = useMemo(() => menuRows(routes), [routes]);
  const shown = filterTree(rows, (row) => matches(keyword, row.name, row.path, routeTitle(row.title)));
  return (
    <DemoList testId="demo-menus" placeholder={t('demo.menu.search')} onSearch={setKeyword}>
      <Table<MenuRow>
        rowKey="path"
        dataSource={shown}
        scroll={{ x: 900 }}
        pagination={demoPagination()}
        columns={[
          { title: t('demo.menu.title'), dataIndex: 'title', render: (title: string) => routeTitle(title) },
          { title: t('demo.menu.name'), dataIndex: 'name', width: 200 },
          { title: t('demo.menu.path'), dataIndex: 'path', width: 260 },
          {
            title: t('demo.menu.icon'),
            dataIndex: 'icon',
            width: 220,
            render: (icon: string | undefined) =>
              icon ? (
                <span>
                  <RouteIcon name={icon} /> {icon}
                </span>
              ) : (
                '-'
              ),
          },
          {
            title: t('demo.menu.hidden'),
            dataIndex: 'hidden',
            width: 100,
            render: (hidden: boolean) => <Tag color={hidden ? 'default' : 'green'}>{t(hidden ? 'common.yes' : 'common.no')}</Tag>,
          },
        ]}
      />
    </DemoList>
  );
}
