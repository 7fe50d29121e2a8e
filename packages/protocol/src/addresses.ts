/** Web addresses that settings store and the widget and console show: a module apart, free of zod, for the loader. */

/**
 * Whitespace, controls and backslashes: a browser drops tabs and line breaks from a URL and reads a
 * backslash as a slash, so `/\host` and `/<tab>/host` are other hosts to it, however they look.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this pattern is for
const UNSAFE_IN_ADDRESS = /[\u0000-\u0020\u007F-\u009F\\]/;

/**
 * An absolute http(s) URL whose host is what it shows: a name or a bracketed IPv6 address, an optional
 * port, then a path, query, fragment or nothing. No user-info (`https://good@evil`) and no empty host.
 */
const WEB_URL = /^https?:\/\/(?:[^/?#@:[\]]+|\[[0-9a-f:.]+\])(?::\d{1,5})?(?:[/?#]|$)/i;

export function isWebUrl(value: string): boolean {
  return !UNSAFE_IN_ADDRESS.test(value) && WEB_URL.test(value);
}

/** An absolute http(s) URL, or a path of this site: one slash, never read as `//another-host`. */
export function isWebAddress(value: string): boolean {
  return isWebUrl(value) || (!UNSAFE_IN_ADDRESS.test(value) && /^\/(?!\/)/.test(value));
}

/** A WeChat ID as WeChat allows one: 6 to 20 letters, digits, `_` or `-`, starting with a letter. */
export function isWeChatId(value: string): boolean {
  return /^[A-Za-z][\w-]{5,19}$/.test(value);
}
