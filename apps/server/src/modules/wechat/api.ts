import type { WeChatChannel } from '@parley/protocol';
import type { WeChatConfig } from '../../config.js';
import type { Claims } from '../../db/claims.js';
import type { Db } from '../../db/index.js';
import type { Sealer } from '../../lib/sealed.js';

export interface WeChatApp {
  channel: WeChatChannel;
  appId: string;
  appSecret: string;
}

/** Why a call to WeChat failed: its `errcode`, or the HTTP status, a timeout or a broken connection (code 0). */
export class WeChatApiError extends Error {
  constructor(
    readonly kind: 'errcode' | 'http' | 'timeout' | 'network' | 'tooLarge',
    readonly code: number,
    message: string,
  ) {
    super(message);
  }

  /** Whether trying again later may succeed: WeChat busy (-1), a 5xx, a timeout or a broken connection. */
  get passing(): boolean {
    return this.kind === 'timeout' || this.kind === 'network' || (this.kind === 'http' && this.code >= 500) || this.code === -1;
  }
}

/** The errcodes that say the access token is no longer valid: refresh it once and try again. */
const TOKEN_INVALID = new Set([40001, 42001, 40014]);
/** A token is taken as expired this long before WeChat's expiry, so none is used at its last second. */
const EXPIRY_MARGIN_MS = 60_000;
/** WeChat's JSON answers are small; anything past this is not WeChat. */
const MAX_JSON_BYTES = 64 * 1024;
const TOKEN_PURPOSE = 'wechat:access_token';

/**
 * WeChat's API at WECHAT_API_BASE, the operator's setting: trusted (not the guard of user-stored URLs) but
 * bounded in time and size all the same. Access tokens come from `stable_token` and are kept, sealed, in
 * the database until they expire, so that every process uses the same one (a stable token is the same
 * for every caller until it expires, so two processes fetching at once get one token).
 *
 * A token WeChat refused is replaced by a forced refresh, which WeChat allows only a few times a day: the
 * callers of one process that hold the same refused token share one refresh, and of several processes
 * one forces it (a claim in the database) while the others wait for its token to appear there.
 */
export class WeChatApi {
  private readonly cached = new Map<string, { token: string; expiresAt: number }>();
  /** The refresh under way in this process, per app and refused token: callers that arrive meanwhile wait for it. */
  private readonly refreshing = new Map<string, Promise<string>>();

  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
    private readonly claims: Claims,
    private readonly config: WeChatConfig,
    private readonly now: () => number = Date.now,
    /** How often a process waiting on another's forced refresh looks for its token. */
    private readonly refreshWaitMs = 100,
  ) {}

  /** The app's access token, from this process, the database or WeChat; `stale` names one WeChat refused. */
  async token(app: WeChatApp, stale?: string): Promise<string> {
    const key = app.appId;
    const mine = this.cached.get(key);
    if (mine && mine.token !== stale && mine.expiresAt - EXPIRY_MARGIN_MS > this.now()) return mine.token;
    const stored = await this.stored(key, stale);
    if (stored) return stored;
    // Callers refused the same token share a refresh; a plain fetch is shared by callers with none.
    const flight = `${key}\n${stale ?? ''}`;
    const under = this.refreshing.get(flight);
    if (under) return under;
    const refresh = this.refresh(app, stale).finally(() => this.refreshing.delete(flight));
    this.refreshing.set(flight, refresh);
    return refresh;
  }

  /** The token in the database, unless it is `stale` or about to expire; kept in this process too. */
  private async stored(key: string, stale?: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('wechat_tokens').selectAll().where('app_key', '=', key).executeTakeFirst();
    if (!row) return undefined;
    const expiresAt = Date.parse(row.expires_at);
    const token = this.open(row.token);
    if (!token || token === stale || expiresAt - EXPIRY_MARGIN_MS <= this.now()) return undefined;
    this.cached.set(key, { token, expiresAt });
    return token;
  }

  private async refresh(app: WeChatApp, stale?: string): Promise<string> {
    if (stale === undefined) return this.fetchToken(app, false);
    // A forced refresh: one process of those sharing the database does it.
    const holdMs = this.config.timeoutMs + 5_000;
    const claim = await this.claims.take(`wechat-token:${app.appId}`, holdMs);
    if (claim) {
      try {
        return await this.fetchToken(app, true);
      } finally {
        await this.claims.release(claim);
      }
    }
    // Another process is forcing one: its token appears in the database, unless it fails or dies first.
    for (let waited = 0; waited < holdMs; waited += this.refreshWaitMs) {
      await new Promise((resolve) => setTimeout(resolve, this.refreshWaitMs));
      const theirs = await this.stored(app.appId, stale);
      if (theirs) return theirs;
    }
    return this.fetchToken(app, true);
  }

  /** Asks WeChat for a token (a new one when `force`), and keeps it, sealed, for every process. */
  private async fetchToken(app: WeChatApp, force: boolean): Promise<string> {
    const key = app.appId;
    const answer = await this.request('/cgi-bin/stable_token', {
      json: { grant_type: 'client_credential', appid: app.appId, secret: app.appSecret, force_refresh: force },
    });
    const token = typeof answer.access_token === 'string' ? answer.access_token : '';
    const expiresIn = typeof answer.expires_in === 'number' ? answer.expires_in : 0;
    if (!token || expiresIn <= 0) throw new WeChatApiError('errcode', 0, 'stable_token answered no token');
    const expiresAt = this.now() + expiresIn * 1000;
    const sealed = this.sealer.seal(token, TOKEN_PURPOSE);
    const expires = new Date(expiresAt).toISOString();
    await this.db
      .insertInto('wechat_tokens')
      .values({ app_key: key, token: sealed, expires_at: expires })
      .onConflict((oc) => oc.column('app_key').doUpdateSet({ token: sealed, expires_at: expires }))
      .execute();
    this.cached.set(key, { token, expiresAt });
    return token;
  }

  /** Asks WeChat for a token with these credentials (the same one while it lives), and keeps it; throws what WeChat refused. */
  async checkCredentials(app: WeChatApp): Promise<void> {
    this.cached.delete(app.appId);
    await this.db.deleteFrom('wechat_tokens').where('app_key', '=', app.appId).execute();
    await this.token(app);
  }

  /** A call with the app's access token; a token WeChat says is invalid is refreshed once and the call made again. */
  async call(app: WeChatApp, path: string, body: { json?: unknown; form?: FormData }, query: Record<string, string> = {}) {
    let token = await this.token(app);
    try {
      return await this.request(path, body, { ...query, access_token: token });
    } catch (error) {
      if (!(error instanceof WeChatApiError && error.kind === 'errcode' && TOKEN_INVALID.has(error.code))) throw error;
      token = await this.token(app, token);
      return this.request(path, body, { ...query, access_token: token });
    }
  }

  /** A pushed message's media (`MediaId`), at most `maxBytes`. */
  async media(app: WeChatApp, mediaId: string, maxBytes: number): Promise<{ bytes: Buffer; contentType: string }> {
    const fetchOnce = async (token: string) => {
      const response = await this.fetch(`/cgi-bin/media/get`, { media_id: mediaId, access_token: token }, { method: 'GET' });
      const contentType = response.headers.get('content-type') ?? '';
      const bytes = await readCapped(response, contentType.includes('json') || contentType.startsWith('text/') ? MAX_JSON_BYTES : maxBytes);
      // WeChat answers an error as JSON where the media would be.
      if (contentType.includes('json') || contentType.startsWith('text/')) checkErrcode(JSON.parse(bytes.toString('utf8')));
      if (!response.ok) throw new WeChatApiError('http', response.status, `media/get answered ${response.status}`);
      return { bytes, contentType };
    };
    const token = await this.token(app);
    try {
      return await fetchOnce(token);
    } catch (error) {
      if (!(error instanceof WeChatApiError && error.kind === 'errcode' && TOKEN_INVALID.has(error.code))) throw error;
      return fetchOnce(await this.token(app, token));
    }
  }

  private open(sealed: string): string | undefined {
    try {
      return this.sealer.open(sealed, TOKEN_PURPOSE);
    } catch {
      return undefined;
    }
  }

  private async request(path: string, body: { json?: unknown; form?: FormData }, query: Record<string, string> = {}) {
    const init: RequestInit =
      body.form !== undefined
        ? { method: 'POST', body: body.form }
        : { method: 'POST', body: JSON.stringify(body.json ?? {}), headers: { 'content-type': 'application/json' } };
    const response = await this.fetch(path, query, init);
    const bytes = await readCapped(response, MAX_JSON_BYTES);
    if (!response.ok) throw new WeChatApiError('http', response.status, `${path} answered ${response.status}`);
    let answer: Record<string, unknown>;
    try {
      answer = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new WeChatApiError('http', 502, `${path} answered something other than JSON`);
    }
    checkErrcode(answer);
    return answer;
  }

  private async fetch(path: string, query: Record<string, string>, init: RequestInit): Promise<Response> {
    const url = `${this.config.apiBase}${path}?${new URLSearchParams(query).toString()}`;
    try {
      return await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(this.config.timeoutMs) });
    } catch (error) {
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
        throw new WeChatApiError('timeout', 0, `${path} took longer than ${this.config.timeoutMs} ms`);
      throw new WeChatApiError('network', 0, `${path} could not be reached`);
    }
  }
}

function checkErrcode(answer: Record<string, unknown>): void {
  const code = answer.errcode;
  if (typeof code === 'number' && code !== 0) {
    throw new WeChatApiError('errcode', code, `WeChat answered errcode ${code}: ${String(answer.errmsg ?? '').slice(0, 200)}`);
  }
}

/** The response's body, refused past `max` bytes without reading the rest. */
async function readCapped(response: Response, max: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel();
    throw new WeChatApiError('tooLarge', 0, 'the answer is larger than allowed');
  }
  const chunks: Buffer[] = [];
  let length = 0;
  if (!response.body) return Buffer.alloc(0);
  try {
    for await (const chunk of response.body) {
      length += chunk.length;
      if (length > max) {
        await response.body.cancel().catch(() => undefined);
        throw new WeChatApiError('tooLarge', 0, 'the answer is larger than allowed');
      }
      chunks.push(Buffer.from(chunk));
    }
  } catch (error) {
    if (error instanceof WeChatApiError) throw error;
    throw new WeChatApiError(error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'network', 0, 'the answer broke off');
  }
  return Buffer.concat(chunks, length);
}
