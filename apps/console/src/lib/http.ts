import type { Envelope } from '@parley/protocol';

/** Statuses with their own explanation in the locale files (seed §8). */
export const KNOWN_STATUSES = [0, 200, 201, 202, 204, 400, 401, 402, 403, 404, 406, 410, 500, 502, 503, 504] as const;

export type TransportFailure = 'aborted' | 'network' | 'timeout';

export class HttpError extends Error {
  constructor(
    /** HTTP status or envelope code; 0 when no answer came back. */
    readonly code: number,
    message: string,
    readonly transport?: TransportFailure,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export interface RequestOptions {
  params?: Record<string, string | number | boolean | null | undefined>;
  body?: unknown;
  /** No toast and no redirect: for calls whose failure the user should not hear about. */
  silent?: boolean;
  signal?: AbortSignal;
}

export interface HttpDeps {
  baseUrl: string;
  getToken(): string;
  setToken(token: string): void;
  language(): string;
  /** 401, or a refresh that failed: the session is over. */
  onUnauthorized(): void;
  onForbidden(): void;
  notify(message: string): void;
  /** Text for a status or transport failure, e.g. `http.status.404`. */
  describe(key: string, values?: Record<string, unknown>): string;
  setLoading?(on: boolean): void;
  timeout: number;
  successCodes: ReadonlyArray<number | string>;
  loadingFragment: string;
  fetch?: typeof fetch;
}

/** A file the server answered instead of an envelope (a CSV export), and the name it suggests. */
export interface Download {
  blob: Blob;
  fileName: string;
}

export interface Http {
  get<T>(url: string, options?: RequestOptions): Promise<T>;
  post<T>(url: string, body?: unknown, options?: RequestOptions): Promise<T>;
  /** A GET answered with a file: the same session policy; an error still comes as an envelope. */
  download(url: string, options?: RequestOptions): Promise<Download>;
}

/** The file name of `Content-Disposition: attachment; filename="…"` (or `filename*=UTF-8''…`). */
export function dispositionName(header: string | null): string | undefined {
  if (!header) return undefined;
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (encoded?.[1]) {
    try {
      return decodeURIComponent(encoded[1]);
    } catch {
      return undefined;
    }
  }
  return /filename="([^"]+)"/i.exec(header)?.[1];
}

function withParams(url: string, params: RequestOptions['params']): string {
  if (!params) return url;
  const search = new URLSearchParams();
  // Falsy values other than undefined are sent as they are: 0, false and '' are real filters.
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.append(key, String(value));
  const query = search.toString();
  return query ? `${url}${url.includes('?') ? '&' : '?'}${query}` : url;
}

function isEnvelope(value: unknown): value is Envelope {
  return typeof value === 'object' && value !== null && 'code' in value;
}

/**
 * The console's one HTTP client: CONTRACT envelope, seed §8 error texts, and the session policy
 * 401 → login, 403 → /403, 402 → a single shared refresh and a replay. Nothing is retried on
 * transport errors, so a POST is never sent twice by the client on its own.
 */
export function createHttp(deps: HttpDeps): Http {
  const doFetch = deps.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  let refreshing: Promise<string> | null = null;

  function refresh(expired: string): Promise<string> {
    if (!refreshing) {
      refreshing = (async () => {
        const response = await doFetch(`${deps.baseUrl}/api/refreshToken`, {
          headers: { Authorization: `Bearer ${expired}`, 'Accept-Language': deps.language() },
        });
        const payload: unknown = await response.json().catch(() => null);
        const token = isEnvelope(payload) && response.ok ? (payload.data as { token?: unknown } | null)?.token : undefined;
        if (typeof token !== 'string' || !token) throw new HttpError(response.status || 401, deps.describe('http.status.401'));
        deps.setToken(token);
        return token;
      })().finally(() => {
        refreshing = null;
      });
    }
    return refreshing;
  }

  async function send(method: 'GET' | 'POST', url: string, options: RequestOptions, token: string): Promise<Response> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, deps.timeout);
    const onAbort = () => controller.abort();
    options.signal?.addEventListener('abort', onAbort);
    const headers: Record<string, string> = { 'Accept-Language': deps.language() };
    if (token) headers.Authorization = `Bearer ${token}`;
    // A file goes as multipart: the browser writes that Content-Type itself, with the boundary.
    const multipart = options.body instanceof FormData;
    if (method === 'POST' && !multipart) headers['Content-Type'] = 'application/json;charset=UTF-8';
    try {
      return await doFetch(`${deps.baseUrl}${withParams(url, options.params)}`, {
        method,
        headers,
        body: method !== 'POST' ? undefined : multipart ? (options.body as FormData) : JSON.stringify(options.body ?? {}),
        signal: controller.signal,
      });
    } catch {
      if (timedOut) throw new HttpError(0, deps.describe('http.timeout', { ms: deps.timeout }), 'timeout');
      if (options.signal?.aborted) throw new HttpError(0, deps.describe('http.aborted'), 'aborted');
      throw new HttpError(0, deps.describe('http.network'), 'network');
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  function fail(error: HttpError, silent: boolean | undefined): never {
    if (!silent) deps.notify(error.message);
    throw error;
  }

  async function request<T>(method: 'GET' | 'POST', url: string, options: RequestOptions, file = false): Promise<T> {
    const loading = url.includes(deps.loadingFragment);
    if (loading) deps.setLoading?.(true);
    try {
      let token = deps.getToken();
      let response: Response;
      let payload: unknown;
      for (let attempt = 0; ; attempt++) {
        response = await send(method, url, options, token).catch((error: HttpError) => fail(error, options.silent));
        if (file && response.ok) {
          const fileName = dispositionName(response.headers.get('content-disposition')) ?? 'download';
          const blob = await response.blob().catch(() => fail(new HttpError(0, deps.describe('http.network'), 'network'), options.silent));
          return { blob, fileName } as T;
        }
        payload = await response.json().catch(() => null);
        const code = isEnvelope(payload) ? Number(payload.code) : response.status;
        if ((response.status === 402 || code === 402) && attempt === 0 && token) {
          // A request that left before another one refreshed only needs the new token, not a new refresh.
          const current = deps.getToken();
          try {
            token = current && current !== token ? current : await refresh(token);
          } catch {
            if (!options.silent) deps.onUnauthorized();
            throw new HttpError(401, deps.describe('http.status.401'));
          }
          continue;
        }
        break;
      }
      const status = response.status;
      if (isEnvelope(payload) && status >= 200 && status < 300 && deps.successCodes.includes(payload.code)) return payload.data as T;
      const code = isEnvelope(payload) ? Number(payload.code) : status;
      const serverMessage = isEnvelope(payload) && typeof payload.msg === 'string' && payload.msg ? payload.msg : '';
      const known = (KNOWN_STATUSES as readonly number[]).includes(code);
      const message = serverMessage || deps.describe(known ? `http.status.${code}` : 'http.status.unknown', { code });
      const error = new HttpError(code, message);
      if (!options.silent) {
        if (code === 401 || code === 402) deps.onUnauthorized();
        else if (code === 403) deps.onForbidden();
      }
      return fail(error, options.silent);
    } finally {
      if (loading) deps.setLoading?.(false);
    }
  }

  return {
    get: (url, options = {}) => request('GET', url, options),
    post: (url, body, options = {}) => request('POST', url, { ...options, body }),
    download: (url, options = {}) => request<Download>('GET', url, options, true),
  };
}
