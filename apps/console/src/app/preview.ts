/**
 * Seed §2's preview check: a build made in preview mode (`vite build --mode preview`, for a public demo)
 * runs only on the hosts it was built for; anywhere else the console does not start.
 */
export function previewBlocked(mode: string, hostname: string, allowedHosts: readonly string[]): boolean {
  if (mode !== 'preview') return false;
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return !allowedHosts.some((allowed) => allowed.toLowerCase() === host);
}

/** localhost, plus what VITE_PARLEY_PREVIEW_HOSTS names (comma-separated: the machine's address, the demo domains). */
export function previewHosts(configured: string | undefined): string[] {
  const extra = (configured ?? '')
    .split(',')
    .map((host) => host.trim())
    .filter(Boolean);
  return ['localhost', '127.0.0.1', '::1', ...extra];
}
