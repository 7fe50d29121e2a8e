import type { Attributes, Channel, Conversation, LabelRef } from '@parley/protocol';
import { sourceOf } from '../visitors/client-info.js';
import { visitorNickname } from '../visitors/views.js';
import type { ConversationRow } from './repository.js';

/** The attributes column as stored (a JSON object); anything else reads as none. */
function parseAttributes(json: string): Attributes {
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Attributes) : {};
  } catch {
    return {};
  }
}

/** `labels`: what the conversation carries (HistoryRepository.labelsOf). */
export function toConversation(row: ConversationRow, labels: LabelRef[]): Conversation {
  const firstVisitor = row.first_visitor_at ? Date.parse(row.first_visitor_at) : Number.NaN;
  const firstResponse = row.first_response_at ? Date.parse(row.first_response_at) : Number.NaN;
  return {
    id: row.id,
    YQToken: row.public_id,
    nickname: visitorNickname({ id: row.visitor_id, name: row.name }),
    channel: row.channel as Channel,
    serviceID: row.service_id,
    agentNickname: row.agent_nickname ?? '',
    startedAt: row.started_at,
    endedAt: row.ended_at,
    messages: Number(row.messages ?? 0),
    firstResponseMs: Number.isFinite(firstVisitor) && Number.isFinite(firstResponse) ? Math.max(0, firstResponse - firstVisitor) : null,
    score: row.score,
    comment: row.comment,
    region: row.region,
    engine: row.engine,
    keyword: row.keyword,
    source: row.link_name ?? sourceOf(row.referrer),
    labels,
    userId: row.user_id,
    email: row.email,
    phone: row.phone,
    attributes: parseAttributes(row.attributes),
  };
}
