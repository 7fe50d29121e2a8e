import { SearchOutlined } from '@ant-design/icons';
import { Alert, Input, Progress, Table, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../lib/format';
import { type DemoItem, demoItems } from './mock';

const COLORS = { published: 'green', draft: 'blue', deleted: 'red' } as const;

export default function DemoTablePage() {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const items = useMemo(() => demoItems(), []);
  const shown = items.filter((item) => item.title.toLowerCase().includes(keyword.trim().toLowerCase()));
  return (
    <div className="page-card list-page" data-testid="demo-table">
      <Alert type="info" showIcon title={t('demo.notice')} className="demo-notice" />
      <div className="list-toolbar">
        <Input
          allowClear
          prefix={<SearchOutlined />}
          placeholder={t('demo.search')}
          style={{ maxWidth: 280 }}
          onChange={(event) => setKeyword(event.target.value)}
        />
      </div>
      <Table<DemoItem>
        rowKey="id"
        dataSource={shown}
        scroll={{ x: 900 }}
        pagination={{ showSizeChanger: true, showTotal: (total) => t('common.total', { total }) }}
        columns={[
          { title: t('demo.title'), dataIndex: 'title' },
          { title: t('demo.author'), dataIndex: 'author', width: 120 },
          {
            title: t('demo.status'),
            dataIndex: 'status',
            width: 120,
            render: (status: DemoItem['status']) => <Tag color={COLORS[status]}>{t(`demo.statuses.${status}`)}</Tag>,
          },
          { title: t('demo.pageViews'), dataIndex: 'pageViews', width: 120, sorter: (a, b) => a.pageViews - b.pageViews },
          {
            title: t('demo.percent'),
            dataIndex: 'percent',
            width: 180,
            render: (percent: number) => <Progress percent={percent} size="small" />,
          },
          { title: t('demo.datetime'), dataIndex: 'datetime', width: 190, render: (value: string) => formatDateTime(value) },
        ]}
      />
    </div>
  );
}
