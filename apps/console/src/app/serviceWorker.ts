import { notify } from '../lib/feedback';
import { i18n } from '../lib/i18n';

const DOWNLOADING_NOTICE_SECONDS = 8;
const RELOAD_AFTER_MS = 10_000;

/**
 * Offline cache of the built assets, with seed §2's notices when a new version arrives; the worker also
 * shows the agents' Web Push notifications (CONTRACT §14).
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  // The first installation is not an update: only a page already controlled by a worker reloads.
  const hadController = Boolean(navigator.serviceWorker.controller);
  navigator.serviceWorker
    .register('/sw.js')
    .then((registration) => {
      registration.addEventListener('updatefound', () => {
        if (!hadController) return;
        notify(i18n.t('sw.title'), i18n.t('sw.downloading'), DOWNLOADING_NOTICE_SECONDS);
      });
    })
    .catch(() => undefined);
  // A notification clicked while this console is open: the worker asks it to show the conversation.
  navigator.serviceWorker.addEventListener('message', (event: MessageEvent<{ type?: string; url?: string }>) => {
    const { type, url } = event.data ?? {};
    if (type !== 'parley:open' || typeof url !== 'string') return;
    const target = new URL(url, window.location.origin);
    if (target.origin !== window.location.origin) return;
    // The console routes by hash: changing it is a navigation the router follows.
    window.location.hash = target.hash;
  });
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (!hadController) return;
    notify(i18n.t('sw.title'), i18n.t('sw.updated'), RELOAD_AFTER_MS / 1000);
    setTimeout(() => window.location.reload(), RELOAD_AFTER_MS);
  });
}
