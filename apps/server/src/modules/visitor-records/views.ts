import type { VisitorRecord } from '@parley/protocol';
import type { MessageRow } from '../../db/schema.js';
import { sourceOf } from '../visitors/client-info.js';
import { toVisitor } from '../visitors/views.js';
import { WINDOW_MS } from '../wechat/outbox.js';
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

/** The visitor's last message, selected beside it under `last_*` names, as the messages table holds it. */
function lastMessageOf(row: VisitorRecordRow): MessageRow | undefined {
  if (row.last_id === null) return undefined;
  return {
    id: row.last_id,
    visitor_id: row.id,
    seq: Number(row.last_message_seq),
    only_id: row.last_only_id ?? '',
    role: row.last_role ?? '',
    type: row.last_type ?? '',
    msg: row.last_msg ?? '',
    nickname: row.last_nickname ?? '',
    service_id: row.last_service_id,
    withdrawn: row.last_withdrawn ?? 0,
    created_at: row.last_created_at ?? '',
    // A list shows the last message's text only; the robot's chips are for the conversation itself.
    suggestions: '',
    delivery: null,
    delivery_error: null,
    via: null,
  };
}

/** A WeChat user's channel fields; the window closes 48 hours after their last interaction. */
function wechatOf(row: VisitorRecordRow): NonNullable<VisitorRecord['wechat']> {
  const at = row.wechat_interaction_at;
  return {
    subscribed: row.wechat_subscribed === null ? null : row.wechat_subscribed === 1,
    lastInteractionAt: at,
    windowEndsAt: at ? new Date(Date.parse(at) + WINDOW_MS).toISOString() : null,
  };
}

export function toVisitorRecord(row: VisitorRecordRow): VisitorRecord {
  return {
    ...toVisitor(row, lastMessageOf(row)),
    name: row.name,
    phone: row.phone,
    email: row.email,
    remark: row.remark ?? '',
    tags: tagsOf(row.tags),
    source: row.link_name ?? sourceOf(row.referrer),
    device: row.device,
    visits: Number(row.visit_count ?? 0),
    conversations: Number(row.conversation_count ?? 0),
    lastSeen: row.last_seen_at,
    ...(row.channel === 'web' ? {} : { wechat: wechatOf(row) }),
  };
}
