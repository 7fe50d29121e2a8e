/** The address a person opens, as the server prints it: an IPv6 host goes in brackets. */
export function serverUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * What `npm start` and `npm run demo` print when they created the first administrator with a generated
 * password: shown once, since the hash is all that is kept.
 */
export function firstAdminNotice(username: string, password: string, signInAt: string): string {
  return `\n  First administrator created.\n  username: ${username}\n  password: ${password}\n  Sign in at ${signInAt} and change it.\n\n`;
}
