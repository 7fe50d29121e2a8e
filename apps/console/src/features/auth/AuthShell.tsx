import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSettings } from '../../stores/settings';

/** The frame of the public pages: product pitch on the left, the form card on the right. */
export function AuthShell({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const language = useSettings((state) => state.language);
  const setLanguage = useSettings((state) => state.setLanguage);
  return (
    <div className="auth-page">
      <div className="auth-lang">
        <button type="button" className={language === 'zh' ? 'is-active' : ''} onClick={() => setLanguage('zh')}>
          {t('language.zh')}
        </button>
        <span aria-hidden="true">/</span>
        <button type="button" className={language === 'en' ? 'is-active' : ''} onClick={() => setLanguage('en')}>
          {t('language.en')}
        </button>
      </div>
      <section className="auth-hero">
        <div className="auth-brand">
          <img src="/logo.svg" alt="" width={40} height={40} />
          <span>{t('app.shortTitle')}</span>
        </div>
        <h1>{t('auth.heroTitle')}</h1>
        <p>{t('auth.heroText')}</p>
        <ul className="auth-points">
          <li>{t('auth.point1')}</li>
          <li>{t('auth.point2')}</li>
          <li>{t('auth.point3')}</li>
        </ul>
      </section>
      <section className="auth-card-wrap">
        <div className="auth-card">{children}</div>
        <footer className="auth-footer">{t('app.copyright', { year: new Date().getFullYear() })}</footer>
      </section>
    </div>
  );
}
