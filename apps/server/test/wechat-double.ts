import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What custom/send answers next, once each, before it goes back to answering `{ errcode: 0 }`. */
export type SendFault = { status: number } | { errcode: number } | { hang: true };

export interface SentMessage {
  accessToken: string;
  body: { touser: string; msgtype: string; text?: { content: string }; image?: { media_id: string } };
}

interface Token {
  value: string;
  expiresAt: number;
}

/**
 * A stand-in for WeChat's API (`WECHAT_API_BASE`), a real HTTP server the tests start. It issues access
 * tokens with an expiry and counts the calls for them; custom/send records what it was given and answers
 * what the test told it to (a 5xx, a hang, an errcode); media/get serves the media a test put up, and
 * media/upload keeps what the server uploads; custom/typing records the typing indicator asked for.
 */
export class WeChatDouble {
  readonly tokenCalls = { stable_token: 0, token: 0 };
  /** stable_token calls with force_refresh: WeChat allows a few a day. */
  forcedRefreshes = 0;
  /** How long a token call takes to answer, as WeChat's may: callers that overlap meanwhile show. */
  tokenDelayMs = 0;
  readonly sent: SentMessage[] = [];
  /** Every custom/typing call with a valid token: whom, Typing or CancelTyping, and when it came. */
  readonly typing: { touser: string; command: string; at: number }[] = [];
  /** Every custom/send call, answered or not: retries show here. */
  sendAttempts = 0;
  readonly uploaded = new Map<string, { type: string; bytes: Buffer }>();
  private readonly media = new Map<string, { contentType: string; bytes: Buffer }>();
  private readonly tokens: Token[] = [];
  private readonly sendFaults: SendFault[] = [];
  private tokenFaults: number[] = [];
  /** Seconds a token issued now lives; WeChat's is 7200. */
  expiresIn = 7200;
  private readonly waiters = new Set<() => void>();
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Listens on `port` (a free one by default: an end-to-end server is told a fixed one before it starts). */
  static async start(port = 0): Promise<WeChatDouble> {
    let double: WeChatDouble | undefined;
    const server = createServer((req, res) => {
      double?.handle(req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    double = new WeChatDouble(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return double;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next custom/send calls answer these, one each, in order. */
  failSends(...faults: SendFault[]): void {
    this.sendFaults.push(...faults);
  }

  /** The next custom/send calls answer this errcode (e.g. 40001: the token is no longer valid), one each. */
  rejectTokens(...errcodes: number[]): void {
    this.tokenFaults.push(...errcodes);
  }

  /** Every token issued so far stops being valid, as when WeChat drops them: calls with one answer 40001. */
  revokeTokens(): void {
    this.tokens.length = 0;
  }

  /** Media a pushed message names by MediaId, served by media/get. */
  putMedia(contentType: string, bytes: Buffer): string {
    const id = `media-${randomBytes(8).toString('hex')}`;
    this.media.set(id, { contentType, bytes });
    return id;
  }

  /** Resolves once `check` holds, checked after every call the double answers. */
  async until<T>(check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
    const found = check();
    if (found) return found;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error('the WeChat double never saw what the test waits for'));
      }, timeoutMs);
      const waiter = () => {
        const value = check();
        if (!value) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(value);
      };
      this.waiters.add(waiter);
    });
  }

  private changed(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private issue(): { access_token: string; expires_in: number } {
    const value = `token-${randomBytes(12).toString('hex')}`;
    this.tokens.push({ value, expiresAt: Date.now() + this.expiresIn * 1000 });
    return { access_token: value, expires_in: this.expiresIn };
  }

  private valid(token: string | null): boolean {
    return this.tokens.some((item) => item.value === token && item.expiresAt > Date.now());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const body = await readBody(req);
    const json = (value: unknown) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(value));
    };
    const accessToken = url.searchParams.get('access_token');
    try {
      switch (url.pathname) {
        case '/cgi-bin/stable_token':
        case '/cgi-bin/token': {
          this.tokenCalls[url.pathname === '/cgi-bin/token' ? 'token' : 'stable_token'] += 1;
          const asked = JSON.parse(body.toString() || '{}') as { secret?: string; force_refresh?: boolean };
          // An AppSecret starting with "wrong" is refused, as WeChat refuses a wrong one.
          if (asked.secret?.startsWith('wrong')) return json({ errcode: 40125, errmsg: 'invalid appsecret' });
          const forced = url.pathname === '/cgi-bin/stable_token' && asked.force_refresh === true;
          if (forced) this.forcedRefreshes += 1;
          if (this.tokenDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.tokenDelayMs));
          // Like WeChat's stable token: the same one again until it expires, unless a refresh is forced.
          const current = this.tokens.at(-1);
          if (url.pathname === '/cgi-bin/stable_token' && !forced && current && this.valid(current.value)) {
            return json({ access_token: current.value, expires_in: Math.floor((current.expiresAt - Date.now()) / 1000) });
          }
          return json(this.issue());
        }
        case '/cgi-bin/message/custom/send': {
          this.sendAttempts += 1;
          const tokenFault = this.tokenFaults.shift();
          if (tokenFault !== undefined) {
            // The token named is dropped, as WeChat drops one a newer token replaced.
            const at = this.tokens.findIndex((item) => item.value === accessToken);
            if (at >= 0) this.tokens.splice(at, 1);
            return json({ errcode: tokenFault, errmsg: 'invalid credential' });
          }
          if (!this.valid(accessToken)) return json({ errcode: 40001, errmsg: 'invalid credential' });
          const fault = this.sendFaults.shift();
          if (fault && 'hang' in fault) {
            this.hanging.add(res);
            return;
          }
          if (fault && 'status' in fault) {
            res.statusCode = fault.status;
            return json({ errmsg: 'server error' });
          }
          if (fault) return json({ errcode: fault.errcode, errmsg: 'refused' });
          this.sent.push({ accessToken: accessToken ?? '', body: JSON.parse(body.toString()) });
          return json({ errcode: 0, errmsg: 'ok' });
        }
        case '/cgi-bin/message/custom/typing': {
          if (!this.valid(accessToken)) return json({ errcode: 40001, errmsg: 'invalid credential' });
          const asked = JSON.parse(body.toString() || '{}') as { touser?: string; command?: string };
          if (!asked.touser || (asked.command !== 'Typing' && asked.command !== 'CancelTyping'))
            return json({ errcode: 40003, errmsg: 'invalid openid or command' });
          this.typing.push({ touser: asked.touser, command: asked.command, at: Date.now() });
          return json({ errcode: 0, errmsg: 'ok' });
        }
        case '/cgi-bin/media/get': {
          if (!this.valid(accessToken)) return json({ errcode: 40001, errmsg: 'invalid credential' });
          const media = this.media.get(url.searchParams.get('media_id') ?? '');
          if (!media) return json({ errcode: 40007, errmsg: 'invalid media_id' });
          res.setHeader('content-type', media.contentType);
          res.end(media.bytes);
          return;
        }
        case '/cgi-bin/media/upload': {
          if (!this.valid(accessToken)) return json({ errcode: 40001, errmsg: 'invalid credential' });
          const id = `up-${randomBytes(8).toString('hex')}`;
          this.uploaded.set(id, { type: url.searchParams.get('type') ?? '', bytes: body });
          return json({ type: url.searchParams.get('type'), media_id: id, created_at: Math.floor(Date.now() / 1000) });
        }
        default:
          res.statusCode = 404;
          res.end();
      }
    } finally {
      this.changed();
    }
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** WeChat's signature of a push: SHA-1 of the parts (token, timestamp, nonce[, Encrypt]) sorted and joined. */
export function sign(...parts: string[]): string {
  return createHash('sha1')
    .update([...parts].sort().join(''))
    .digest('hex');
}

/** A text message pushed in plain mode, as WeChat writes one. */
export function textPush(openid: string, content: string, msgId: string, createTime = Math.floor(Date.now() / 1000)): string {
  return `<xml><ToUserName><![CDATA[gh_account]]></ToUserName><FromUserName><![CDATA[${openid}]]></FromUserName><CreateTime>${createTime}</CreateTime><MsgType><![CDATA[text]]></MsgType><Content><![CDATA[${content}]]></Content><MsgId>${msgId}</MsgId></xml>`;
}
