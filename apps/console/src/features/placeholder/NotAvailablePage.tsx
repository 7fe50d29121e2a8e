import { ClockCircleOutlined } from '@ant-design/icons';
import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useRouteState } from '../../app/useRouteState';
import { routeTitle } from '../../lib/i18n';

/** A business page whose feature is not built yet says so plainly instead of showing fake data. */
export default function NotAvailablePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { leaf } = useRouteState();
  const title = routeTitle(leaf?.meta?.title);
  return (
    <div className="page-card" data-testid="not-available">
      <Result
        icon={<ClockCircleOutlined />}
        title={t('placeholder.title', { page: title })}
        subTitle={t('placeholder.text')}
        extra={
          <Button type="primary" onClick={() => navigate('/')}>
            {t('errors.backHome')}
          </Button>
        }
      />
    </div>
  );
}
