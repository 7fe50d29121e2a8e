import type {
  Attributes,
  Channel,
  Message,
  MessageDelivery,
  MessageRole,
  MessageType,
  Visit,
  Visitor,
  VisitorState,
} from '@parley/protocol';
import type { MessageRow, VisitorRow } from '../../db/schema.js';
import type { Lang } from '../../lib/i18n.js';

export function toVisit(row: { url: string; title: string; created_at: string }): Visit {
  return { URL: row.url, title: row.title, created_at: row.created_at };
}

/**
 * The language a visitor is written to in: English when their browser asked for any English, else Chinese,
 * the site's default. Takes the stored row or the language the widget sent before there is a row.
 */
export function visitorLang(row: { lang?: string | null }): Lang {
  return row.lang?.toLowerCase().startsWith('en') ? 'en' : 'zh';
}

/**
 * A short name for a visitor who has not given one: the same in every language. Repeated in SQL by
 * ConversationRepository's visitorWritesMany (PostgreSQL's one-statement messages): change both.
 */
export function visitorNickname(row: Pick<VisitorRow, 'id' | 'name'>): string {
  return row.name || `V${String(row.id).padStart(4, '0')}`;
}

export function toVisitor(row: VisitorRow, lastMessage: MessageRow | undefined): Visitor {
  return {
    YQToken: row.public_id,
    nickname: visitorNickname(row),
    state: row.state as VisitorState,
    serviceID: row.service_id,
    unreadNumber: row.unread,
    umsg: row.umsg,
    smsg: row.smsg,
    online: row.online === 1,
    channel: row.channel as Channel,
    region: row.region,
    platform: row.platform,
    browser: row.browser,
    referrer: row.referrer,
    engine: row.engine,
    keyword: row.keyword,
    firstUrl: row.first_url,
    created_at: row.created_at,
    lastMessage: lastMessage ? toMessage(lastMessage, row.public_id) : null,
    userId: row.user_id ?? null,
    name: row.name,
    email: row.email,
    phone: row.phone,
    attributes: attributesOf(row),
    // A conversation whose visitor left shows since when in the agent's list; its last sight is when it left.
    ...(row.online === 0 && row.state === 'current' ? { leftAt: row.last_seen_at } : {}),
  };
}

/** A stored attributes column as an object; a damaged one reads as none. */
export function attributesOf(row: Pick<VisitorRow, 'attributes'>): Attributes {
  try {
    const value: unknown = JSON.parse(row.attributes || '{}');
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Attributes) : {};
  } catch {
    return {};
  }
}

/**
 * One of a visitor's messages as the protocol shows it (messages are kept per visitor, in seq order).
 * `publicId` is the visitor's public id, never its credential: messages reach agents too.
 */
export function toMessage(row: MessageRow, publicId: string): Message {
  return {
    id: row.id,
    YQToken: publicId,
    seq: row.seq,
    onlyID: row.only_id,
    role: row.role as MessageRole,
    type: row.type as MessageType,
    // A withdrawn message keeps its place in the sequence but no longer shows what it said.
    msg: row.withdrawn ? '' : row.msg,
    nickname: row.nickname,
    serviceID: row.service_id,
    time: row.created_at,
    withdrawn: row.withdrawn === 1,
    ...(row.suggestions ? { suggestions: row.suggestions.split('\n') } : {}),
    // Null for web visitors; WeChat visitors' outgoing messages say whether WeChat took them (§11).
    delivery: (row.delivery as MessageDelivery | null | undefined) ?? null,
    deliveryError: row.delivery_error ?? null,
    ...(row.via ? { via: row.via } : {}),
  };
}
