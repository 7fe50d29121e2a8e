/** Credentials that ride in query strings (socket URLs) never reach a log line. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:token|YQToken)=)[^&#]*/gi, '$1[redacted]');
}
