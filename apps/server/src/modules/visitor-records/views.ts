import type { Channel, MessageRole, MessageType, VisitorRecord, VisitorState } from '@parley/protocol';
import { sourceOf } from '../history/views.js';
import { visitorNickname } from '../visitors/views.js';
import type { VisitorRecordRepository } from './repository.js';

export type VisitorRecordRow = NonNullable<Awaited<ReturnType<VisitorRecordRepository['find']>>>;

function tagsOf(stored: string | null): string[] {
  if (!stored) return [];
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.filter((tag): tag is string => typeof tag === 'string') : [];
  } catch {
    return [];
  }
}

export function toVisitorRecord(row: VisitorRecordRow): VisitorRecord {
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
    lastMessage:
      row.last_id === null
        ? null
        : {
            id: row.last_id,
            YQToken: row.public_id,
            seq: Number(row.last_message_seq),
            onlyID: row.last_only_id ?? '',
            role: row.last_role as MessageRole,
            type: row.last_type as MessageType,
            // A withdrawn message keeps its place but no longer shows what it said.
            msg: row.last_withdrawn ? '' : (row.last_msg ?? ''),
            nickname: row.last_nickname ?? '',
            serviceID: row.last_service_id,
            time: row.last_created_at ?? '',
            withdrawn: row.last_withdrawn === 1,
          },
    name: row.name,
    phone: row.phone,
    email: row.email,
    remark: row.remark ?? '',
    tags: tagsOf(row.tags),
    source: sourceOf(row.referrer),
    device: row.device,
    visits: Number(row.visit_count ?? 0),
    conversations: Number(row.conversation_count ?? 0),
    lastSeen: row.last_seen_at,
  };
}
