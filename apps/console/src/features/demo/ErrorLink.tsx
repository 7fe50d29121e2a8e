import { Button, Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

/** The sample error entries: they explain and open the console's real /403 and /404 pages. */
export function ErrorLink({ status }: { status: 403 | 404 }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <div className="page-card" data-testid={`demo-error-${status}`}>
      <Result
        status={status === 403 ? '403' : '404'}
        title={String(status)}
        subTitle={t(status === 403 ? 'demo.errorLink.forbidden' : 'demo.errorLink.notFound')}
        extra={
          <Button type="primary" onClick={() => navigate(`/${status}`)}>
            {t('demo.errorLink.open', { path: `/${status}` })}
          </Button>
        }
      />
    </div>
  );
}
