import { settings } from '../lib/settings';
import { useUi } from '../stores/ui';

/** Uncaught errors and rejections go to the error-log popup, with the page they happened on. */
export function recordError(error: unknown): void {
  if (import.meta.env.PROD && !settings.errorLogInProduction) return;
  const err = error instanceof Error ? error : new Error(String(error));
  useUi.getState().addError({ url: window.location.href, message: err.message, stack: err.stack ?? '', time: new Date().toISOString() });
}

export function captureErrors(): void {
  window.addEventListener('error', (event) => recordError(event.error ?? event.message));
  window.addEventListener('unhandledrejection', (event) => {
    // Failed API calls were already shown to the user by the HTTP client.
    if (event.reason instanceof Error && event.reason.name === 'HttpError') return;
    recordError(event.reason);
  });
}
