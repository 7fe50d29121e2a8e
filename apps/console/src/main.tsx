import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { captureErrors } from './app/errorLog';
import { previewBlocked, previewHosts } from './app/preview';
import { registerServiceWorker } from './app/serviceWorker';
import { i18n, initI18n } from './lib/i18n';
import { useSettings } from './stores/settings';
import './styles/global.css';

captureErrors();
void initI18n(useSettings.getState().language).then(() => {
  const root = document.getElementById('root');
  if (!root) return;
  if (previewBlocked(import.meta.env.MODE, location.hostname, previewHosts(import.meta.env.VITE_PARLEY_PREVIEW_HOSTS))) {
    // A public demo build copied elsewhere says where it runs instead of starting.
    root.innerHTML = '';
    const notice = document.createElement('p');
    notice.className = 'preview-blocked';
    notice.textContent = i18n.t('preview.blocked');
    root.appendChild(notice);
    return;
  }
  createRoot(root).render(<App />);
  registerServiceWorker();
});
