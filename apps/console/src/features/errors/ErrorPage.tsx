import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

export function ErrorPage({ status }: { status: 403 | 404 }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <div className="error-page" data-testid={`error-${status}`}>
      <Result
        status={status === 403 ? '403' : '404'}
        title={String(status)}
        subTitle={t(status === 403 ? 'errors.forbidden' : 'errors.notFound')}
        extra={
          <Button type="primary" onClick={() => navigate('/', { replace: true })}>
            {t('errors.backHome')}
          </Button>
        }
      />
    </div>
  );
}
