import { useSession } from '../stores/session';
import { useSettings } from '../stores/settings';
import { useUi } from '../stores/ui';
import { toastError } from './feedback';
import { createHttp } from './http';
import { i18n } from './i18n';
import { settings, WHITELIST } from './settings';

/** Where a path goes when the session ends: the login page, carrying it unless it is the root. */
export function loginPath(current: string): string {
  return !current || current === '/' || current.startsWith('/login') ? '/login' : `/login?redirect=${encodeURIComponent(current)}`;
}

function currentPath(): string {
  return window.location.hash.replace(/^#/, '') || '/';
}

let ending = false;

/** Ends the session once, even when several requests learn about it together. */
export function endSession(): void {
  if (ending) return;
  ending = true;
  useSession.getState().clear();
  window.dispatchEvent(new Event('session-reset'));
  const current = currentPath();
  // A public page (a failed login among them) stays where it is, keeping its own redirect.
  if (!WHITELIST.some((path) => current === path || current.startsWith(`${path}?`))) window.location.hash = `#${loginPath(current)}`;
  setTimeout(() => {
    ending = false;
  }, 0);
}

export const http = createHttp({
  baseUrl: '',
  getToken: () => useSession.getState().token,
  setToken: (token) => useSession.getState().setToken(token),
  language: () => useSettings.getState().language,
  onUnauthorized: endSession,
  onForbidden() {
    window.location.hash = '#/403';
  },
  notify: toastError,
  describe: (key, values) => i18n.t(key, values ?? {}),
  setLoading: (on) => useUi.getState().setLoading(on),
  timeout: settings.requestTimeout,
  successCodes: settings.successCodes,
  loadingFragment: settings.loadingFragment,
});
