import { Alert } from 'antd';
import { useTranslation } from 'react-i18next';
import { ICON_NAMES, RouteIcon } from '../../app/icons';

export default function DemoIconPage() {
  const { t } = useTranslation();
  return (
    <div className="page-card" data-testid="demo-icons">
      <Alert type="info" showIcon title={t('demo.notice')} className="demo-notice" />
      <div className="demo-icons">
        {ICON_NAMES.map((name) => (
          <div key={name} className="demo-icon">
            <RouteIcon name={name} />
            <span>{name}</span>
          </div>
        ))}
      </div>
    </div>
  );
}
