import { Table, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../lib/format';
import { DemoList } from './DemoList';
import { demoPagination, matches } from './listKit';
import { type LogResult, type SystemLog, systemLogs } from './mock';

const RESULT_COLORS: Record<LogResult, string> = {
  loginSuccess: 'green',
  loginFailure: 'orange',
  interfaceException: 'volcano',
  attack: 'red',
};

/** Sample content (VITE_PARLEY_DEMO=1 only): the template's system log over mock rows. */
export default function SystemLogPage() {
  const { t } = useTranslation();
  const [keyword, setKeyword] = useState('');
  const logs = useMemo(() => systemLogs(), []);
  const shown = logs.filter((log) =>
    matches(keyword, log.account, log.ip, t(`demo.log.types.${log.type}`), t(`demo.log.results.${log.executeResult}`)),
  );
  return (
    <DemoList testId="demo-logs" placeholder={t('demo.log.search')} onSearch={setKeyword}>
      <Table<SystemLog>
        rowKey="uuid"
        dataSource={shown}
        scroll={{ x: 900 }}
        pagination={demoPagination()}
        columns={[
          { title: 'ID', dataIndex: 'id', width: 80 },
          { title: t('demo.log.account'), dataIndex: 'account', width: 140 },
          { title: t('demo.log.type'), dataIndex: 'type', width: 140, render: (type: SystemLog['type']) => t(`demo.log.types.${type}`) },
          {
            title: t('demo.log.result'),
            dataIndex: 'executeResult',
            width: 160,
            render: (result: LogResult) => <Tag color={RESULT_COLORS[result]}>{t(`demo.log.results.${result}`)}</Tag>,
          },
          { title: t('demo.log.ip'), dataIndex: 'ip', width: 160 },
          { title: t('demo.datetime'), dataIndex: 'datetime', width: 190, render: (value: string) => formatDateTime(value) },
        ]}
      />
    </DemoList>
  );
}
