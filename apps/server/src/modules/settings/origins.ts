import type { FastifyRequest } from 'fastify';

/**
 * Whether a visitor request may come from the page that sent it (`appSetting.allowedOrigins`). An empty
 * list lets any site embed the widget; the server's own pages (`/chat`) are always allowed; a request
 * without an Origin is no other site's page (browsers name the origin of every cross-site POST and socket).
 */
export function originAllowed(req: FastifyRequest, allowedOrigins: readonly string[]): boolean {
  if (allowedOrigins.length === 0) return true;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (parsed.host === req.host) return true;
  return allowedOrigins.includes(parsed.origin.toLowerCase());
}
