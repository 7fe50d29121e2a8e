import type { Message, MessageDelivery, MessageRole, MessageType } from '@parley/protocol';
import type { MessageRow } from '../../db/schema.js';

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
    ...(row.suggestions ? { suggestions: row.suggestions.split('\n') } : {}),
    // Null for web visitors; WeChat visitors' outgoing messages say whether WeChat took them (§11).
    delivery: (row.delivery as MessageDelivery | null | undefined) ?? null,
    deliveryError: row.delivery_error ?? null,
    ...(row.via ? { via: row.via } : {}),
  };
}
