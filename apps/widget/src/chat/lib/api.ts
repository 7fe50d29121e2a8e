import type { Envelope } from '@parley/protocol';

/** A failed call: `status` is the envelope's code, or 0 when the network itself failed. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }

  /** Errors a retry cannot fix: the request itself is wrong or refused. */
  get permanent(): boolean {
    return this.status >= 400 && this.status < 500 && this.status !== 408 && this.status !== 429 && this.status !== 401;
  }
}

export interface Api {
  get<T>(path: string, query: Record<string, string | number>): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  upload<T>(path: string, form: FormData): Promise<T>;
}

/** Calls the visitor API on the chat window's own origin, speaking the envelope of CONTRACT §2. */
export function createApi(lang: string): Api {
  const call = async <T>(path: string, init: RequestInit): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(path, { ...init, headers: { 'Accept-Language': lang, ...init.headers }, credentials: 'omit' });
    } catch {
      throw new ApiError(0, '');
    }
    let envelope: Envelope<T> | null = null;
    try {
      envelope = (await response.json()) as Envelope<T>;
    } catch {
      // A proxy's HTML error page or an empty body: the HTTP status still says what happened.
    }
    if (response.ok && envelope && envelope.code === 200) return envelope.data;
    throw new ApiError(envelope?.code ?? response.status, envelope?.msg ?? response.statusText);
  };
  return {
    get: (path, query) => {
      const search = new URLSearchParams(Object.entries(query).map(([key, value]) => [key, String(value)]));
      return call(`${path}?${search}`, { method: 'GET' });
    },
    post: (path, body) => call(path, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
    upload: (path, form) => call(path, { method: 'POST', body: form }),
  };
}
