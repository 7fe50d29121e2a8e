import { z } from 'zod';
import { type ListData, pageQuery } from './api.js';
import { CHANNELS, type Channel, type Message, type Visit, type Visitor } from './chat.js';
import { endpointGroup, returns } from './endpoint.js';
import type { Attributes } from './identity.js';
import { linkKey, visitorId } from './ids.js';
import type { LabelRef } from './labels.js';
import type { Note } from './notes.js';
import { line, multiline } from './strings.js';

const trimmed = (max: number) => line(z.string().trim().max(max));
/** A day in the site's time zone (`YYYY-MM-DD`) or an ISO 8601 instant (CONTRACT §7). */
export const dayOrInstant = z.iso.datetime({ offset: true }).or(z.iso.date());
const dateRange = { from: dayOrInstant.optional(), to: dayOrInstant.optional() };
const keyword = trimmed(100).optional();
const optionalText = (max: number) => trimmed(max).optional();
const email = z.union([z.literal(''), z.email().max(254)]);
const phone = line(z.string().trim().max(32)).regex(/^[\d\s+()-]*$/);

// ——— Visitors (`/user/*`) ———

export interface VisitorRecord extends Visitor {
  name: string;
  phone: string;
  email: string;
  remark: string;
  tags: string[];
  /** The link's name when the visitor came through a chat link, else the referrer's host. */
  source: string;
  device: string;
  visits: number;
  conversations: number;
  lastSeen: string;
  /**
   * A WeChat user (channel `officialAccount` / `miniProgram`), absent for web visitors: subscribed or not
   * (null: not known, as for a mini program), the last message or window-opening event, and when the
   * 48-hour window to reply closes (null: never opened).
   */
  wechat?: { subscribed: boolean | null; lastInteractionAt: string | null; windowEndsAt: string | null };
}

export const MAX_TAGS = 20;
export const visitorListQuery = pageQuery.extend({ channel: z.enum(CHANNELS).optional(), keyword, ...dateRange });
export const visitorDetailQuery = z.object({ YQToken: visitorId });
export const visitorEditBody = z.object({
  YQToken: visitorId,
  nickname: optionalText(64),
  name: optionalText(64),
  phone: phone.optional(),
  email: email.optional(),
  remark: multiline(z.string().trim().max(1000)).optional(),
  tags: z
    .array(line(z.string().trim().min(1).max(32)))
    .max(MAX_TAGS)
    .optional(),
});
export const visitorDeleteBody = z.object({ ids: z.array(visitorId).min(1).max(100) });

export interface VisitorDetail {
  visitor: VisitorRecord;
  visits: Visit[];
  conversations: Conversation[];
}

// ——— History (`/history/history`) ———

export interface Conversation {
  id: number;
  /** The visitor's public id. */
  YQToken: string;
  nickname: string;
  channel: Channel;
  serviceID: string | null;
  agentNickname: string;
  startedAt: string;
  endedAt: string | null;
  messages: number;
  firstResponseMs: number | null;
  score: number | null;
  comment: string;
  region: string;
  engine: string;
  keyword: string;
  source: string;
  /** The labels agents put on it, in the order of the label list (by name). */
  labels: LabelRef[];
  /** The site's own id of a signed-in visitor (CONTRACT §13), null for an anonymous one. */
  userId: string | null;
  email: string;
  phone: string;
  /** What the site told of the visitor (`Parley('setAttributes', …)` or identify). */
  attributes: Attributes;
}

export const historyFilters = z.object({
  keyword,
  /** Only conversations carrying this label (its id). */
  label: z.coerce.number().int().positive().optional(),
  serviceID: z.string().uuid().optional(),
  channel: z.enum(CHANNELS).optional(),
  score: z.coerce.number().int().min(1).max(5).optional(),
  ...dateRange,
});
export const historyListQuery = pageQuery.extend(historyFilters.shape);
/**
 * The longest range one history export covers, in days counted in the site's zone (a year, a leap one
 * included). Without `from`, an export starts that many days before its `to` (or today); a wider range
 * answers 400 naming `from`.
 */
export const MAX_EXPORT_DAYS = 366;
export const historyDetailQuery = z.object({ id: z.coerce.number().int().positive() });

export interface ConversationDetail {
  conversation: Conversation;
  messages: Message[];
  /** Its internal notes, oldest first; each follows the message of its `afterSeq`. */
  notes: Note[];
  visits: Visit[];
}

// ——— Leave messages (`/history/letter`) ———

export const LETTER_STATES = ['unread', 'read', 'handled'] as const;
export type LetterState = (typeof LETTER_STATES)[number];

export interface Letter {
  id: number;
  /** The visitor's public id when the letter was left from the widget. */
  YQToken: string | null;
  name: string;
  phone: string;
  email: string;
  content: string;
  createdAt: string;
  read: boolean;
  handled: boolean;
  handledBy: string | null;
  note: string;
}

const ids = z.array(z.coerce.number().int().positive()).min(1).max(100);
export const letterListQuery = pageQuery.extend({ state: z.enum(LETTER_STATES).optional(), keyword, ...dateRange });
export const letterReadBody = z.object({ ids });
export const letterEditBody = z.object({
  id: z.coerce.number().int().positive(),
  handled: z.boolean(),
  note: multiline(z.string().trim().max(1000)).optional(),
});

// ——— Friendly contacts (`/service/friendly`) ———

export interface Friendly {
  id: number;
  name: string;
  company: string;
  phone: string;
  email: string;
  wechat: string;
  remark: string;
  created_at: string;
}

export const friendlyListQuery = pageQuery.extend({ keyword });
export const friendlyEditBody = z.object({
  id: z.coerce.number().int().positive().optional(),
  name: line(z.string().trim().min(1).max(64)),
  company: optionalText(128),
  phone: phone.optional(),
  email: email.optional(),
  wechat: optionalText(64),
  remark: multiline(z.string().trim().max(1000)).optional(),
});

// ——— Chat links (`/link`) ———

export interface ChatLink {
  id: number;
  name: string;
  /** The `link` parameter of `/chat?link=<key>`. */
  key: string;
  /** The agent the link's visitors are pinned to, if any. */
  serviceID: string | null;
  remark: string;
  /** `PUBLIC_URL/chat?link=<key>` */
  url: string;
  visitors: number;
  conversations: number;
  created_at: string;
}

export const linkListQuery = pageQuery.extend({ keyword });
export const linkEditBody = z.object({
  id: z.coerce.number().int().positive().optional(),
  name: line(z.string().trim().min(1).max(64)),
  key: linkKey.optional(),
  serviceID: z.string().uuid().nullable().optional(),
  remark: multiline(z.string().trim().max(1000)).optional(),
});

const deleteIds = z.object({ ids });

/** The records half of the back office (CONTRACT §7). */
export const recordEndpoints = endpointGroup({
  'GET /api/user/getList': { query: visitorListQuery, response: returns<ListData<VisitorRecord>>() },
  'GET /api/user/detail': { query: visitorDetailQuery, response: returns<VisitorDetail>() },
  'POST /api/user/doEdit': { body: visitorEditBody, response: returns<VisitorRecord>() },
  'POST /api/user/doDelete': { body: visitorDeleteBody, response: returns<void>() },

  'GET /api/history/getList': { query: historyListQuery, response: returns<ListData<Conversation>>() },
  'GET /api/history/detail': { query: historyDetailQuery, response: returns<ConversationDetail>() },
  /** `text/csv; charset=utf-8` with a BOM, one row per conversation. */
  'GET /api/history/export': { query: historyFilters, response: returns<void>(), raw: true },

  'GET /api/letter/getList': { query: letterListQuery, response: returns<ListData<Letter>>() },
  'POST /api/letter/read': { body: letterReadBody, response: returns<void>() },
  'POST /api/letter/doEdit': { body: letterEditBody, response: returns<Letter>() },
  'POST /api/letter/doDelete': { body: deleteIds, response: returns<void>() },

  'GET /api/friendly/getList': { query: friendlyListQuery, response: returns<ListData<Friendly>>() },
  'POST /api/friendly/doEdit': { body: friendlyEditBody, response: returns<{ id: number }>() },
  'POST /api/friendly/doDelete': { body: deleteIds, response: returns<void>() },

  'GET /api/link/getList': { query: linkListQuery, response: returns<ListData<ChatLink>>() },
  'POST /api/link/doEdit': { body: linkEditBody, response: returns<{ id: number }>() },
  'POST /api/link/doDelete': { body: deleteIds, response: returns<void>() },
  /** The link's chat address as a QR code (`data:` URL of a PNG). */
  'GET /api/link/qrcode': {
    query: z.object({ id: z.coerce.number().int().positive() }),
    response: returns<{ url: string; qrCode: string }>(),
  },
});
