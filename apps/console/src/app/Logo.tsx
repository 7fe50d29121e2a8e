import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

export function Logo({ collapsed = false, light = false }: { collapsed?: boolean; light?: boolean }) {
  const { t } = useTranslation();
  return (
    <Link to="/" className={`app-logo${light ? ' app-logo-light' : ''}`} aria-label={t('app.title')}>
      <img src="/logo.svg" alt="" width={30} height={30} />
      {!collapsed && <span className="app-logo-title">{t('app.shortTitle')}</span>}
    </Link>
  );
}
