import { SearchOutlined } from '@ant-design/icons';
import { Alert, Input } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** The frame of the sample list pages: the sample notice, a search box and the table below. */
export function DemoList({
  testId,
  placeholder,
  onSearch,
  children,
}: {
  testId: string;
  placeholder: string;
  onSearch: (keyword: string) => void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <div className="page-card list-page" data-testid={testId}>
      <Alert type="info" showIcon title={t('demo.notice')} className="demo-notice" />
      <div className="list-toolbar">
        <Input
          allowClear
          prefix={<SearchOutlined />}
          placeholder={placeholder}
          style={{ maxWidth: 280 }}
          onChange={(event) => onSearch(event.target.value)}
        />
      </div>
      {children}
    </div>
  );
}
