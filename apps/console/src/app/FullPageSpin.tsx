import { useTranslation } from 'react-i18next';

/**
 * Shown while a page or the session loads. Drawn with CSS alone: it sits on the login page's path,
 * where every kilobyte counts.
 */
export function FullPageSpin() {
  const { t } = useTranslation();
  return (
    <div className="full-page-spin" role="status" aria-label={t('common.loading')}>
      <span className="page-spinner" />
    </div>
  );
}
