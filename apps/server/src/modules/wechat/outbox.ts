import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type DeliveryUpdate, type MessageDelivery, TIP_TEXTS, tipText, type WeChatChannel, type WeChatErrorCode } from '@parley/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { WeChatConfig } from '../../config.js';
import type { Db } from '../../db/index.js';
import { Poller } from '../../lib/poller.js';
import type { EventHub } from '../../realtime/domain-events.js';
import type { ConversationOutbox } from '../conversations/outboxes.js';
import { FILE_NAME } from '../uploads/sweep.js';
import { type WeChatApi, WeChatApiError, type WeChatApp } from './api.js';
import { isWeChatChannel } from './inbound.js';
import type { WeChatStatus } from './status.js';

/** Tries of one send before it is given up as `unreachable`. */
const MAX_ATTEMPTS = 10;
const MAX_BACKOFF_MS = 10 * 60_000;
/** Rows taken per look; the rest wait for the next. */
const BATCH = 20;
/** The conversation's notices a WeChat user is told (the rest, such as an agent joining, stay in the workbench). */
const TIPS_FOR_WECHAT: readonly string[] = ['tip.robotHandover', 'tip.ended', 'tip.closedIdle', 'tip.ratePrompt', 'tip.rated'];

/**
 * Whether a stored message goes to WeChat: agents' and the robot's, and the tips the visitor sees that
 * speak to them (auto answers, which are stored as text, and the notices above).
 */
function forWeChat(message: { role: string; msg: string }, visitorSees: boolean): boolean {
  if (message.role === 'service' || message.role === 'robot') return true;
  if (message.role !== 'tip' || !visitorSees) return false;
  return !(message.msg in TIP_TEXTS) || TIPS_FOR_WECHAT.includes(message.msg);
}

/** WeChat's refusals that no retry changes, and what the agent is told. */
const REFUSED: Record<number, string> = { 45015: 'windowClosed', 45047: 'quotaExceeded' };

/** A failed call to WeChat as the channel's status keeps it: its code, the English text, the detail. */
function failureOf(error: WeChatApiError): [WeChatErrorCode, string, string] {
  const code: WeChatErrorCode =
    error.kind === 'errcode'
      ? 'wechatRefused'
      : error.kind === 'http'
        ? 'httpError'
        : error.kind === 'network'
          ? 'unreachable'
          : error.kind;
  return [code, error.message, error.kind === 'errcode' || error.kind === 'http' ? String(error.code) : ''];
}

/** WeChat takes replies for 48 hours after the user's last message or window-opening event. */
export const WINDOW_MS = 48 * 3600_000;

/** Why WeChat would refuse a reply now: its window closed, or the replies its quota allows were sent. */
export function windowRefusal(
  user: { last_interaction_at: string | null; window_sent: number },
  quota: number,
  now: number,
): 'windowClosed' | 'quotaExceeded' | undefined {
  const opened = user.last_interaction_at ? Date.parse(user.last_interaction_at) : Number.NaN;
  if (!(now - opened < WINDOW_MS)) return 'windowClosed';
  if (user.window_sent >= quota) return 'quotaExceeded';
  return undefined;
}

/**
 * Agents', the robot's and auto answers' messages to WeChat visitors, on their way to WeChat's
 * customer-service message API. A stored message is put in the `wechat_outbox` table (durable: a restart
 * picks it up again) and marked `pending`; each process looks for due rows, claims one at a time with a
 * conditional update (so one process sends it), and marks it `sent`, or `failed` with the reason, or
 * tries again later with a doubling wait after a failure that may pass (5xx, a timeout, WeChat busy).
 */
export class WeChatOutbox {
  private readonly poller = new Poller(
    () => this.drain(),
    (error) => this.log.error({ err: error }, 'WeChat outbox failed'),
  );

  constructor(
    private readonly db: Db,
    private readonly api: WeChatApi,
    private readonly appOf: (channel: WeChatChannel) => (WeChatApp & { enabled: boolean; windowQuota: number }) | undefined,
    private readonly events: EventHub,
    private readonly status: WeChatStatus,
    private readonly config: WeChatConfig,
    private readonly uploadsDir: string,
    private readonly baseUrl: () => string,
    private readonly log: FastifyBaseLogger,
    private readonly now: () => number = Date.now,
    /** The site's language: what the notices above are worded in. */
    private readonly lang: () => 'zh' | 'en' = () => 'zh',
  ) {}

  /**
   * The send's row, written in the message's own transaction: a message committed to a WeChat visitor is
   * always sent, and a rolled-back one never. The message is `pending` from the start, so the agents'
   * frame and the sender's answer say so.
   */
  readonly outbox: ConversationOutbox = {
    stored: async (tx, visitor, row, visitorSees) => {
      if (!isWeChatChannel(visitor.channel) || !forWeChat(row, visitorSees)) return;
      const at = new Date(this.now()).toISOString();
      await tx.updateTable('messages').set({ delivery: 'pending', delivery_error: null }).where('id', '=', row.id).execute();
      await tx
        .insertInto('wechat_outbox')
        .values({ message_id: row.id, visitor_id: visitor.id, next_at: at, claimed_until: null, created_at: at })
        .onConflict((oc) => oc.column('message_id').doNothing())
        .execute();
      row.delivery = 'pending';
      row.delivery_error = null;
    },
    // A visitor's own message is never sent back to WeChat (forWeChat).
    quietOnVisitorMessages: () => true,
  };

  /** Once a send's message has committed, the outbox looks for it at once. */
  subscribe(events: EventHub): void {
    events.on('message.stored', ({ visitor, message }) => {
      if (isWeChatChannel(visitor.channel) && message.delivery === 'pending') this.kick();
    });
  }

  start(): void {
    this.poller.start(this.config.pollMs);
  }

  stop(): Promise<void> {
    return this.poller.stop();
  }

  /** Looks for due sends now (again right after the current look, when one is running). */
  kick(): void {
    this.poller.kick();
  }

  private async drain(): Promise<void> {
    for (;;) {
      const now = new Date(this.now()).toISOString();
      const due = await this.db
        .selectFrom('wechat_outbox as o')
        .select(['o.id', 'o.message_id', 'o.visitor_id', 'o.attempts'])
        .where('o.next_at', '<=', now)
        .where((eb) => eb.or([eb('o.claimed_until', 'is', null), eb('o.claimed_until', '<', now)]))
        // Each visitor's messages reach WeChat in their order: only the oldest waiting one of each is
        // taken, so one waiting for its retry holds the later ones back.
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('wechat_outbox as earlier')
                .select('earlier.id')
                .whereRef('earlier.visitor_id', '=', 'o.visitor_id')
                .whereRef('earlier.id', '<', 'o.id'),
            ),
          ),
        )
        .orderBy('o.id')
        .limit(BATCH)
        .execute();
      if (due.length === 0) return;
      // Different visitors' messages go side by side.
      const sent = await Promise.all(
        due.map(async (row) => {
          if (this.poller.stopped || !(await this.claim(row.id, now))) return false;
          await this.deliver({ ...row, attempts: row.attempts + 1 });
          return true;
        }),
      );
      if (!sent.some(Boolean)) return;
    }
  }

  /** Takes the row for this process, unless another took it first; a crash frees it when the claim runs out. */
  private async claim(id: number, now: string): Promise<boolean> {
    const until = new Date(this.now() + this.config.timeoutMs * 4 + 30_000).toISOString();
    const result = await this.db
      .updateTable('wechat_outbox')
      .set((eb) => ({ claimed_until: until, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', id)
      .where('next_at', '<=', now)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  private async deliver(row: { id: number; message_id: number; visitor_id: number; attempts: number }): Promise<void> {
    const message = await this.db.selectFrom('messages').selectAll().where('id', '=', row.message_id).executeTakeFirst();
    const user = await this.db
      .selectFrom('wechat_users')
      .select(['channel', 'openid', 'last_interaction_at', 'window_sent'])
      .where('visitor_id', '=', row.visitor_id)
      .executeTakeFirst();
    if (!message || !user || !isWeChatChannel(user.channel)) {
      await this.db.deleteFrom('wechat_outbox').where('id', '=', row.id).execute();
      return;
    }
    const channel = user.channel;
    const app = this.appOf(channel);
    if (!app?.enabled || !app.appId || !app.appSecret) return this.finish(row, message, 'failed', 'notConfigured');
    try {
      if (message.withdrawn) return this.finish(row, message, 'failed', 'withdrawn');
      // Refused here rather than by WeChat: a message WeChat would refuse is not sent (each visitor's sends
      // go one at a time, so the count read is the count).
      const refusal = windowRefusal(user, app.windowQuota, this.now());
      if (refusal) return this.finish(row, message, 'failed', refusal);
      const text = message.role === 'tip' && message.msg in TIP_TEXTS ? tipText(message.msg, message.nickname, this.lang()) : message.msg;
      await this.send(app, user.openid, message.type, text);
      await this.db
        .updateTable('wechat_users')
        .set((eb) => ({ window_sent: eb('window_sent', '+', 1) }))
        .where('visitor_id', '=', row.visitor_id)
        .execute();
      await this.finish(row, message, 'sent', null);
    } catch (error) {
      if (!(error instanceof WeChatApiError)) throw error;
      await this.status.failed(channel, ...failureOf(error));
      const refused = error.kind === 'errcode' ? REFUSED[error.code] : undefined;
      if (refused) return this.finish(row, message, 'failed', refused);
      if (!error.passing) return this.finish(row, message, 'failed', error.kind === 'errcode' ? `errcode${error.code}` : error.kind);
      if (row.attempts >= MAX_ATTEMPTS) return this.finish(row, message, 'failed', 'unreachable');
      const wait = Math.min(MAX_BACKOFF_MS, this.config.retryMs * 2 ** (row.attempts - 1));
      await this.db
        .updateTable('wechat_outbox')
        .set({ next_at: new Date(this.now() + wait).toISOString(), claimed_until: null })
        .where('id', '=', row.id)
        .execute();
      this.log.warn(
        { messageId: message.id, attempts: row.attempts, waitMs: wait, reason: error.message },
        'WeChat send will be tried again',
      );
    }
  }

  private async send(app: WeChatApp, openid: string, type: string, msg: string): Promise<void> {
    if (type === 'image') {
      const name = /^\/api\/files\/([^/]+)/.exec(msg)?.[1];
      if (name && FILE_NAME.test(name)) {
        const bytes = await readFile(join(this.uploadsDir, name));
        const form = new FormData();
        form.append('media', new Blob([bytes]), name);
        const uploaded = await this.api.call(app, '/cgi-bin/media/upload', { form }, { type: 'image' });
        const mediaId = typeof uploaded.media_id === 'string' ? uploaded.media_id : '';
        await this.api.call(app, '/cgi-bin/message/custom/send', {
          json: { touser: openid, msgtype: 'image', image: { media_id: mediaId } },
        });
        return;
      }
    }
    // Files (and images from elsewhere) go as their link: WeChat's customer-service messages carry no files.
    const content = type === 'text' ? msg : msg.startsWith('/') ? `${this.baseUrl()}${msg}` : msg;
    await this.api.call(app, '/cgi-bin/message/custom/send', { json: { touser: openid, msgtype: 'text', text: { content } } });
  }

  private async finish(
    row: { id: number; visitor_id: number },
    message: { id: number; only_id: string },
    delivery: MessageDelivery,
    deliveryError: string | null,
  ): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.updateTable('messages').set({ delivery, delivery_error: deliveryError }).where('id', '=', message.id).execute();
      await tx.deleteFrom('wechat_outbox').where('id', '=', row.id).execute();
    });
    const visitor = await this.db.selectFrom('visitors').selectAll().where('id', '=', row.visitor_id).executeTakeFirst();
    if (!visitor) return;
    const update: DeliveryUpdate = { YQToken: visitor.public_id, id: message.id, onlyID: message.only_id, delivery, deliveryError };
    await this.events.emit('message.delivery', { visitor, update });
  }
}
