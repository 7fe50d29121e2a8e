import { Table } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../lib/format';
import { DemoList } from './DemoList';
import { demoPagination, filterTree, matches } from './listKit';
import { type Department, departmentTree } from './mock';

/** Sample content (VITE_PARLEY_DEMO=1 only): the template's department tree as a tree table. */
export default function DepartmentManagementPage() {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const tree = useMemo(() => departmentTree(), []);
  const shown = filterTree(tree, (node) => matches(keyword, node.name));
  return (
    <DemoList testId="demo-departments" placeholder={t('demo.department.search')} onSearch={setKeyword}>
      <Table<Department>
        // Remounts on each search so the tree opens fully around the matches.
        key={keyword}
        rowKey="id"
        dataSource={shown}
        scroll={{ x: 760 }}
        pagination={demoPagination()}
        expandable={{ defaultExpandAllRows: true }}
        columns={[
          { title: t('demo.department.name'), dataIndex: 'name' },
          { title: t('demo.department.parentName'), dataIndex: 'parentName', render: (value: string) => value || '-' },
          { title: t('demo.department.order'), dataIndex: 'order', width: 100 },
          {
            title: t('common.createdAt'),
            dataIndex: 'createTime',
            width: 190,
            render: (value: string) => formatDateTime(value),
          },
        ]}
      />
    </DemoList>
  );
}
