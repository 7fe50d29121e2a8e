import { createHash, randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MessageType, SettingsOf, WeChatChannel } from '@parley/protocol';
import { XMLParser } from 'fast-xml-parser';
import { isUniqueViolation } from '../../db/errors.js';
import type { Db } from '../../db/index.js';
import type { Sealer } from '../../lib/sealed.js';
import { isoNow } from '../../lib/time.js';
import type { ConversationService } from '../conversations/service.js';
import { sniff } from '../uploads/sniff.js';
import type { VisitorService } from '../visitors/service.js';
import type { WeChatApi, WeChatApp } from './api.js';
import { looksLikeScore, type WeChatRatings } from './ratings.js';
import type { WeChatStatus } from './status.js';

export const WECHAT_CHANNELS: readonly WeChatChannel[] = ['officialAccount', 'miniProgram'];
export const isWeChatChannel = (value: string): value is WeChatChannel => (WECHAT_CHANNELS as readonly string[]).includes(value);

/** A push as WeChat sends it, every field a string (XML and JSON alike). */
export type Push = Record<string, string>;

/** The events recorded on the visitor's timeline (its visits), by WeChat's name. */
const EVENTS: Record<string, string> = {
  subscribe: '关注公众号 / Subscribed',
  unsubscribe: '取消关注 / Unsubscribed',
  SCAN: '扫描二维码 / Scanned a QR code',
  CLICK: '点击菜单 / Clicked a menu',
  VIEW: '点击菜单链接 / Opened a menu link',
  user_enter_tempsession: '进入客服会话 / Entered the chat',
};

/** The message types stored as the user's messages; any other is a tip that one came (never a 500). */
const MESSAGE_TYPES = new Set(['text', 'image', 'voice', 'video', 'shortvideo', 'location', 'link', 'miniprogrampage']);

/**
 * The events that open WeChat's 48-hour reply window, as its customer-service rules list them (a
 * message does too); leaving (`unsubscribe`) or opening a menu link (`VIEW`) does not.
 */
const WINDOW_EVENTS = new Set(['subscribe', 'SCAN', 'CLICK', 'scancode_push', 'scancode_waitmsg', 'user_enter_tempsession']);

const CREDENTIAL_PURPOSE = 'wechat:visitor-credential';

export class BadPush extends Error {}

const xml = new XMLParser({ parseTagValue: false, parseAttributeValue: false, ignoreAttributes: true, processEntities: true });

/** The fields of a push body, XML (`<xml>…</xml>`) or JSON; throws BadPush when it is neither. */
export function parsePush(body: string, format: 'xml' | 'json'): Push {
  // WeChat never sends a document type; one could define entities that expand without bound.
  if (format === 'xml' && /<!(DOCTYPE|ENTITY)/i.test(body)) throw new BadPush('the body declares a document type');
  let value: unknown;
  try {
    if (format === 'json') value = JSON.parse(body);
    else {
      const parsed = xml.parse(body, true) as { xml?: unknown };
      value = parsed.xml;
    }
  } catch {
    throw new BadPush('the body is not well-formed');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadPush('the body holds no message');
  const push: Push = {};
  for (const [key, field] of Object.entries(value)) {
    if (typeof field === 'string' || typeof field === 'number') push[key] = String(field);
  }
  return push;
}

/**
 * Pushes from WeChat, once checked: each openid is one visitor of the channel (its credential kept
 * sealed, so that its messages go through the very path of the widget's: queue, robot, auto answers);
 * messages are stored as the visitor's, media fetched at once into its uploads, events recorded as its
 * visits. A repeated push is stored once: messages by their onlyID (`wx-<MsgId>`), events by their key.
 */
export class WeChatInbound {
  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
    private readonly api: WeChatApi,
    private readonly visitors: VisitorService,
    private readonly conversations: Pick<ConversationService, 'visitorMessage' | 'notice'>,
    private readonly status: WeChatStatus,
    private readonly options: {
      uploadsDir: string;
      maxUploadBytes: () => number;
      maxLength: () => number;
      now: () => number;
      ratings: WeChatRatings;
    },
  ) {}

  async receive(channel: WeChatChannel, app: SettingsOf<'weChatSetting'>[WeChatChannel], push: Push): Promise<void> {
    const openid = push.FromUserName ?? '';
    const type = push.MsgType ?? '';
    if (!/^[\w-]{1,128}$/.test(openid) || !type || !/^\d{1,12}$/.test(push.CreateTime ?? '')) throw new BadPush('a field is missing');
    const key = push.MsgId ? `m:${push.MsgId}` : `e:${openid}:${push.CreateTime}`;
    const { credential, visitorId, publicId, online } = await this.visitorOf(channel, openid, push.UnionId ?? '');
    // A WeChat user is reachable while they write (WeChat has no page to leave): present, as a widget that is open.
    if (!online) await this.visitors.markOnline(publicId);
    const wechatApp: WeChatApp = { channel, appId: app.appId, appSecret: app.appSecret };
    if (type === 'event') {
      // Events have no id of their own: their key, unique in wechat_pushes, keeps a repeated one out.
      const recorded = await this.once(channel, key, async () => {
        const event = push.Event ?? '';
        if (WINDOW_EVENTS.has(event) || event === 'unsubscribe')
          await this.interacted(visitorId, WINDOW_EVENTS.has(event), event === 'subscribe' ? 1 : event === 'unsubscribe' ? 0 : undefined);
        const title = EVENTS[event] ?? event.slice(0, 64);
        const detail = push.EventKey ? ` ${push.EventKey.slice(0, 200)}` : '';
        await this.visitors.visit(credential, `wechat://event/${encodeURIComponent(event.slice(0, 64))}`, `${title}${detail}`);
      });
      if (!recorded) return;
    } else if (!MESSAGE_TYPES.has(type)) {
      // A kind of message Parley cannot show (WeChat adds kinds): the agent is told, in their language, that
      // one came, rather than shown its raw fields as the user's words. Kept once, as events are.
      const told = await this.once(channel, key, async () => {
        await this.interacted(visitorId, true);
        const visitor = await this.visitors.repo.findById(this.db, visitorId);
        if (visitor) await this.conversations.notice(visitor, 'tip.unsupportedMessage', type.slice(0, 32), false);
      });
      if (!told) return;
    } else {
      // A message's onlyID is unique per visitor: storing a repeated push answers the stored message. Asked
      // first only so that a repeated push does not fetch its media again.
      const onlyID = `wx-${push.MsgId && /^\d{1,40}$/.test(push.MsgId) ? push.MsgId : createHash('sha1').update(key).digest('hex').slice(0, 40)}`;
      if (await this.stored(visitorId, onlyID)) return;
      // Before the message is stored: the answers it sets off (auto answers, the robot) go out in its window.
      await this.interacted(visitorId, true);
      const store = async () => {
        const content = await this.contentOf(wechatApp, visitorId, push);
        await this.conversations.visitorMessage(credential, { ...content, onlyID });
      };
      if (type === 'text' && looksLikeScore(push.Content ?? '')) {
        // Perhaps the score asked for when the conversation ended: kept once by its key, as it is no message;
        // a score not taken as a rating is the user's words.
        const taken = await this.once(channel, key, async () => {
          const visitor = await this.visitors.repo.findById(this.db, visitorId);
          if (!(visitor && (await this.options.ratings.take(visitor, credential, push.Content ?? '')))) await store();
        });
        if (!taken) return;
      } else {
        await store();
      }
    }
    this.status.received(channel);
  }

  /** Notes what WeChat's rules follow: a new 48-hour window with its quota whole again, and the subscription. */
  private async interacted(visitorId: number, opensWindow: boolean, subscribed?: 0 | 1): Promise<void> {
    const window = opensWindow ? { last_interaction_at: new Date(this.options.now()).toISOString(), window_sent: 0 } : {};
    await this.db
      .updateTable('wechat_users')
      .set({ ...window, ...(subscribed !== undefined ? { subscribed } : {}) })
      .where('visitor_id', '=', visitorId)
      .execute();
  }

  private async stored(visitorId: number, onlyID: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('messages')
      .select('id')
      .where('visitor_id', '=', visitorId)
      .where('only_id', '=', onlyID)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Does a push's work once by its key: false when another push (or process) recorded the key first. When
   * the work fails the key is let go again, so that WeChat's next push of it (WeChat pushes again when it
   * is not answered `success`) does the work rather than being taken for done; so is a key whose recording
   * failed, which the database may have stored all the same (a connection lost before its answer).
   */
  private async once(channel: WeChatChannel, key: string, work: () => Promise<void>): Promise<boolean> {
    try {
      if (!(await this.remember(channel, key))) return false;
      await work();
    } catch (error) {
      await this.db
        .deleteFrom('wechat_pushes')
        .where('channel', '=', channel)
        .where('push_key', '=', key.slice(0, 200))
        .execute()
        .catch(() => undefined);
      throw error;
    }
    return true;
  }

  /** Records the push's key; false when another push (or process) recorded it first. */
  private async remember(channel: WeChatChannel, key: string): Promise<boolean> {
    const result = await this.db
      .insertInto('wechat_pushes')
      .values({ channel, push_key: key.slice(0, 200), created_at: isoNow() })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** The visitor of this openid (its credential and id), made on its first push. */
  private async visitorOf(
    channel: WeChatChannel,
    openid: string,
    unionid: string,
  ): Promise<{ credential: string; visitorId: number; publicId: string; online: boolean }> {
    const known = await this.db
      .selectFrom('wechat_users')
      .innerJoin('visitors', 'visitors.id', 'wechat_users.visitor_id')
      .select(['wechat_users.visitor_id', 'wechat_users.credential', 'wechat_users.unionid', 'visitors.public_id', 'visitors.online'])
      .where('wechat_users.channel', '=', channel)
      .where('wechat_users.openid', '=', openid)
      .executeTakeFirst();
    if (known) {
      if (unionid && known.unionid !== unionid)
        await this.db
          .updateTable('wechat_users')
          .set({ unionid: unionid.slice(0, 128) })
          .where('visitor_id', '=', known.visitor_id)
          .execute();
      return {
        credential: this.sealer.open(known.credential, `${CREDENTIAL_PURPOSE}:${known.visitor_id}`),
        visitorId: known.visitor_id,
        publicId: known.public_id,
        online: known.online === 1,
      };
    }
    // The visitor and its openid are stored together: a push that fails half-way leaves no visitor behind
    // (WeChat pushes it again), and two processes making this openid's visitor at once keep one.
    let visitorId = 0;
    try {
      const made = await this.visitors.init(
        {
          url: `wechat://${channel}`,
          title: channel === 'officialAccount' ? '微信公众号 / Official account' : '微信小程序 / Mini program',
          lang: 'zh',
          channel,
        },
        { ip: '', userAgent: channel === 'miniProgram' ? 'WeChat MiniProgram' : 'WeChat' },
        {
          // WeChat no longer tells nicknames: a short suffix of the openid tells visitors apart until an agent
          // renames them. The device is a phone and the "browser" WeChat itself, whatever a user agent would say.
          profile: {
            name: `微信用户 ·${openid.slice(-4)}`,
            device: 'mobile',
            browser: channel === 'miniProgram' ? 'WeChat mini program' : 'WeChat',
          },
          within: async (tx, visitor, credential) => {
            visitorId = visitor.id;
            await tx
              .insertInto('wechat_users')
              .values({
                channel,
                openid,
                unionid: unionid.slice(0, 128),
                visitor_id: visitor.id,
                credential: this.sealer.seal(credential, `${CREDENTIAL_PURPOSE}:${visitor.id}`),
                created_at: isoNow(),
              })
              .execute();
          },
        },
      );
      return { credential: made.YQToken, visitorId, publicId: made.id, online: false };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Another process made this openid's visitor at the same moment: its visitor is the one.
      return this.visitorOf(channel, openid, unionid);
    }
  }

  /** What a pushed message becomes: text as is, media fetched into the visitor's uploads, the rest as text. */
  private async contentOf(app: WeChatApp, visitorId: number, push: Push): Promise<{ msg: string; type: MessageType }> {
    const max = this.options.maxLength();
    const text = (value: string) => ({ msg: value.slice(0, max) || ' ', type: 'text' as const });
    switch (push.MsgType) {
      case 'text':
        return text(push.Content ?? '');
      case 'image':
      case 'voice':
      case 'video':
      case 'shortvideo': {
        if (!push.MediaId) return text(`[${push.MsgType}]`);
        const url = await this.fetchMedia(app, visitorId, push.MediaId, push.MsgType);
        return url ? { msg: url.path, type: url.image ? 'image' : 'file' } : text(`[${push.MsgType}]`);
      }
      case 'location':
        return text(`[位置 / Location] ${push.Label ?? ''} (${push.Location_X ?? ''}, ${push.Location_Y ?? ''})`.trim());
      case 'link':
        return text([push.Title, push.Description, push.Url].filter(Boolean).join('\n'));
      default: // 'miniprogrampage', the last of MESSAGE_TYPES
        return text(`[小程序卡片 / Mini program card] ${push.Title ?? ''} ${push.PagePath ?? ''}`.trim());
    }
  }

  /** The media of a push, stored as the visitor's upload; undefined when WeChat did not give it. */
  private async fetchMedia(
    app: WeChatApp,
    visitorId: number,
    mediaId: string,
    kind: string,
  ): Promise<{ path: string; image: boolean } | undefined> {
    const { bytes } = await this.api.media(app, mediaId, this.options.maxUploadBytes());
    const head = bytes.subarray(0, 4096);
    const found = sniff(head, '') ?? mediaType(head);
    if (!found) return undefined;
    const name = `${randomBytes(18).toString('base64url')}.${found.extension}`;
    const path = join(this.options.uploadsDir, name);
    await writeFile(path, bytes);
    const label = `${kind}.${found.extension}`;
    try {
      await this.db
        .insertInto('uploads')
        .values({
          name,
          original_name: label,
          mime: found.mime,
          size: bytes.length,
          visitor_id: visitorId,
          agent_id: null,
          ip: 'wechat',
          created_at: isoNow(),
        })
        .execute();
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    return { path: `/api/files/${name}/${encodeURIComponent(label)}`, image: found.image };
  }
}

/** WeChat's own media formats beyond the upload types: voice (AMR) and video (MP4), kept as downloads. */
function mediaType(head: Buffer): { mime: string; extension: string; image: boolean } | undefined {
  if (head.subarray(0, 5).toString('latin1') === '#!AMR') return { mime: 'audio/amr', extension: 'amr', image: false };
  if (head.subarray(4, 8).toString('latin1') === 'ftyp') return { mime: 'video/mp4', extension: 'mp4', image: false };
  if (head.subarray(0, 5).toString('latin1') === '#!SILK' || head.subarray(1, 10).toString('latin1') === '#!SILK_V3')
    return { mime: 'audio/silk', extension: 'silk', image: false };
  return undefined;
}
