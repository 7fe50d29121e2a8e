import { useEffect } from 'react';

/**
 * Runs `handler` on a window event while the component is mounted: the app-wide events of seed §2
 * ('theme', 'random-theme'), 'session-reset', 'resize'. Pass a stable handler (useCallback or a store
 * action) so the listener is not re-added on every render.
 */
export function useWindowEvent(name: string, handler: () => void): void {
  useEffect(() => {
    window.addEventListener(name, handler);
    return () => window.removeEventListener(name, handler);
  }, [name, handler]);
}
