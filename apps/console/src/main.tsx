import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { captureErrors } from './app/errorLog';
import { registerServiceWorker } from './app/serviceWorker';
import { initI18n } from './lib/i18n';
import { useSettings } from './stores/settings';
import './styles/global.css';

captureErrors();
void initI18n(useSettings.getState().language).then(() => {
  const root = document.getElementById('root');
  if (root) createRoot(root).render(<App />);
  registerServiceWorker();
});
