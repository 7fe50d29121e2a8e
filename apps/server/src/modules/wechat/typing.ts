import type { FastifyBaseLogger } from 'fastify';
import type { Claims } from '../../db/claims.js';
import type { Db } from '../../db/index.js';
import type { AuthContext } from '../../lib/caller.js';
import { ApiError, notFound } from '../../lib/errors.js';
import type { WeChatApi, WeChatApp } from './api.js';
import { isWeChatChannel } from './inbound.js';
import { WINDOW_MS } from './outbox.js';

type AppOf = (channel: 'officialAccount' | 'miniProgram') => (WeChatApp & { enabled: boolean }) | undefined;

/**
 * WeChat's typing indicator (`cgi-bin/message/custom/typing`), shown to a WeChat user while their agent
 * types. WeChat shows it for about 15 s: it is asked again at most once every `intervalMs` per user,
 * whichever process the agent's request reaches (a claim in the database: the console tells the server
 * at most every 5 s, so one write each), and cancelled when the agent clears the draft, by whichever
 * process showed it. Only within the 48-hour window, when WeChat would take it; a failure is only
 * logged, the agent's typing waits on nothing.
 */
export class WeChatTyping {
  constructor(
    private readonly db: Db,
    private readonly api: WeChatApi,
    private readonly claims: Claims,
    private readonly appOf: AppOf,
    private readonly intervalMs: number,
    private readonly log: FastifyBaseLogger,
    private readonly now: () => number = Date.now,
  ) {}

  async typing(auth: AuthContext, publicId: string, typing: boolean): Promise<null> {
    const row = await this.db
      .selectFrom('visitors')
      .innerJoin('wechat_users', 'wechat_users.visitor_id', 'visitors.id')
      .select(['visitors.id', 'visitors.state', 'visitors.service_id', 'wechat_users.channel', 'wechat_users.openid'])
      .select('wechat_users.last_interaction_at')
      .where('visitors.public_id', '=', publicId)
      .executeTakeFirst();
    if (!row || !isWeChatChannel(row.channel)) throw notFound();
    // Only the agent who answers the user types to them (a monitor or supervisor only reads).
    if (row.state !== 'current' || row.service_id !== auth.uuid) throw new ApiError(403, 'notYourConversation');
    if (typing) {
      const opened = row.last_interaction_at ? Date.parse(row.last_interaction_at) : Number.NaN;
      if (!(this.now() - opened < WINDOW_MS)) return null;
      if (!(await this.claims.take(claimName(row.id), this.intervalMs))) return null;
    } else {
      // Cancelled only where some process showed it, and it has not lapsed since.
      if (!(await this.claims.end(claimName(row.id)))) return null;
    }
    const app = this.appOf(row.channel);
    if (!app?.enabled || !app.appId || !app.appSecret) return null;
    this.api
      .call(app, '/cgi-bin/message/custom/typing', { json: { touser: row.openid, command: typing ? 'Typing' : 'CancelTyping' } })
      .catch((error: unknown) => this.log.warn({ err: error }, 'WeChat typing indicator failed'));
    return null;
  }
}

function claimName(visitorId: number): string {
  return `wechat-typing:${visitorId}`;
}
