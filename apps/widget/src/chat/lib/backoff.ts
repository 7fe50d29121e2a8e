export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** Injected so tests can pin the jitter. */
  random?: () => number;
}

export const RECONNECT: BackoffOptions = { baseMs: 500, maxMs: 30_000 };
export const RESEND: BackoffOptions = { baseMs: 1000, maxMs: 15_000 };

/**
 * Delay before attempt `attempt` (0 for the first retry): doubling up to a ceiling, with jitter over the
 * upper half, so the visitors of a restarted server do not all come back in the same instant.
 */
export function backoffDelay(attempt: number, { baseMs, maxMs, random = Math.random }: BackoffOptions): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(0, attempt), 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
