import { SearchOutlined } from '@ant-design/icons';
import type { LoginRecord } from '@parley/protocol';
import { Button, DatePicker, Form, Input, Select, Table, Tag, Typography } from 'antd';
import type { Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { formatTime, useListPage } from '../shared/list';

interface SearchValues {
  username?: string;
  result?: 'success' | 'failure';
  range?: [Dayjs | null, Dayjs | null] | null;
}

export default function RecordPage() {
  const { t, i18n } = useTranslation();
  const lang = i18n.language === 'en' ? 'en' : 'zh';
  const page = useListPage('record');
  return (
    <div className="page-card list-page" data-testid="record-page">
      <div className="list-toolbar">
        <Form<SearchValues>
          name="recordSearch"
          layout="inline"
          onFinish={(values) =>
            page.search({
              username: values.username?.trim() || undefined,
              result: values.result,
              from: values.range?.[0]?.format('YYYY-MM-DD'),
              to: values.range?.[1]?.format('YYYY-MM-DD'),
            })
          }
        >
          <Form.Item name="username">
            <Input allowClear placeholder={t('record.username')} prefix={<SearchOutlined />} />
          </Form.Item>
          <Form.Item name="result">
            <Select
              allowClear
              aria-label={t('record.resultLabel')}
              placeholder={t('record.resultLabel')}
              style={{ width: 140 }}
              options={[
                { value: 'success', label: t('record.result.success') },
                { value: 'failure', label: t('record.result.failure') },
              ]}
            />
          </Form.Item>
          <Form.Item name="range">
            <DatePicker.RangePicker allowEmpty={[true, true]} />
          </Form.Item>
          <Button type="primary" htmlType="submit">
            {t('common.search')}
          </Button>
        </Form>
      </div>
      <Table<LoginRecord>
        rowKey="id"
        loading={page.query.isFetching}
        dataSource={page.list}
        scroll={{ x: 900 }}
        pagination={page.pagination}
        columns={[
          { title: t('record.username'), dataIndex: 'username', width: 160 },
          {
            title: t('record.resultLabel'),
            dataIndex: 'result',
            width: 100,
            render: (result: LoginRecord['result']) => (
              <Tag color={result === 'success' ? 'green' : 'red'}>{t(`record.result.${result}`)}</Tag>
            ),
          },
          {
            title: t('record.reason'),
            dataIndex: 'reason',
            width: 200,
            render: (reason: string) => (reason ? t(`record.reasons.${reason}`, { defaultValue: reason }) : '-'),
          },
          { title: t('record.ip'), dataIndex: 'ip', width: 150 },
          {
            title: t('record.userAgent'),
            dataIndex: 'userAgent',
            ellipsis: true,
            render: (agent: string) => (
              <Typography.Text type="secondary" ellipsis={{ tooltip: agent }}>
                {agent || '-'}
              </Typography.Text>
            ),
          },
          { title: t('record.time'), dataIndex: 'created_at', width: 190, render: (value: string) => formatTime(value, lang) },
        ]}
      />
    </div>
  );
}
