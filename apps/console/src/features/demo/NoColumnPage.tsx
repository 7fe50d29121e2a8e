import { ColumnWidthOutlined } from '@ant-design/icons';
import { Result } from 'antd';
import { useTranslation } from 'react-i18next';

export default function NoColumnPage() {
  const { t } = useTranslation();
  return (
    <div className="page-card" data-testid="demo-no-column">
      <Result icon={<ColumnWidthOutlined />} title={t('demo.noColumnTitle')} subTitle={t('demo.noColumnText')} />
    </div>
  );
}
