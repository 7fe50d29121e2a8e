import { type Lang, type MessageKey, type MessageParams, translate } from './i18n.js';

/**
 * An error meant for the client: its HTTP status is its envelope code, its message a translation key
 * rendered in the request's language. Anything else thrown becomes a bare 500.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly key: MessageKey,
    readonly params: MessageParams = {},
  ) {
    super(key);
  }

  localized(lang: Lang): string {
    return translate(lang, this.key, this.params);
  }
}

/** 429 with the seconds the client should wait, sent as Retry-After. */
export class RetryLaterError extends ApiError {
  constructor(
    key: MessageKey,
    params: MessageParams,
    readonly retryAfterSeconds: number,
  ) {
    super(429, key, params);
  }
}

export const badRequest = (key: MessageKey, params?: MessageParams) => new ApiError(400, key, params);
export const unauthorized = (key: MessageKey = 'notLoggedIn') => new ApiError(401, key);
export const forbidden = () => new ApiError(403, 'forbidden');
export const notFound = (key: MessageKey = 'notFound') => new ApiError(404, key);
export const conflict = (key: MessageKey, params?: MessageParams) => new ApiError(409, key, params);
