import type { Channel, Message, MessageRole, MessageType, Visitor, VisitorState } from '@parley/protocol';
import type { MessageRow, VisitorRow } from './repository.js';

/** `publicId` is the visitor's public id, never its credential: messages reach agents too. */
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
  };
}

/** A short name for a visitor who has not given one: the same in every language. */
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
  };
}
