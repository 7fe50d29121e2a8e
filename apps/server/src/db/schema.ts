import type { ColumnType, Generated, Selectable } from 'kysely';

/**
 * Column conventions shared by SQLite and PostgreSQL: times are ISO 8601 UTC text (sortable and
 * comparable as text on both), booleans are 0/1 integers, lists are JSON text.
 */
export interface RolesTable {
  id: Generated<number>;
  name: string;
  permissions: string;
  builtin: number;
  created_at: string;
}

export interface AgentsTable {
  id: Generated<number>;
  uuid: string;
  username: string;
  nickname: string;
  avatar: string;
  password_hash: string;
  role_id: number;
  state: string;
  max_chats: number;
  disabled: number;
  /** 1 while a self-registered account waits for an administrator to enable it. */
  pending: number;
  /** Personal notification choices (1 = on). */
  /** The agent's own notification choices: 1 or 0, or null to follow the team's desktop settings. */
  notify_new_user: Generated<number | null>;
  notify_new_msg: Generated<number | null>;
  notify_sound: Generated<number | null>;
  notify_transfer: Generated<number | null>;
  notify_letter: Generated<number | null>;
  created_at: string;
  updated_at: string;
  /** Where account notices are mailed; '' for nowhere. */
  email: Generated<string>;
  /** 1 when the stored password is shorter than today's rule: the agent is asked to change it. */
  password_change_required: Generated<number>;
  mfa_enabled: Generated<number>;
  /** The TOTP seed, sealed (lib/sealed.ts); null while two-factor sign-in is off. */
  mfa_secret: Generated<string | null>;
  /** The seed being set up, sealed, until a code confirms it. */
  mfa_pending_secret: Generated<string | null>;
  /** The last TOTP time step accepted: a code is never taken twice. */
  mfa_last_step: Generated<number | null>;
}

export interface SessionsTable {
  id: Generated<number>;
  agent_id: number;
  token_hash: string;
  expires_at: string;
  refresh_until: string;
  revoked: number;
  /** When the sign-in began (a refresh carries it to the renewed session). */
  created_at: string;
  ip: Generated<string>;
  user_agent: Generated<string>;
  /** Written at most once a minute. */
  last_used_at: Generated<string | null>;
}

export interface LoginLogTable {
  id: Generated<number>;
  username: string;
  agent_id: number | null;
  ip: string;
  user_agent: string;
  result: string;
  reason: string;
  /** 1 when the attempt counts toward the failed-login limit. */
  counted: number;
  created_at: string;
}

/** Append-only (CONTRACT §15): rows are inserted, never updated or deleted. */
export interface AuditLogTable {
  id: Generated<number>;
  /** The acting username as it was then, or 'system'. */
  actor: string;
  actor_id: number | null;
  action: string;
  target: string;
  /** JSON object text. */
  detail: string;
  ip: string;
  created_at: string;
}

export interface VisitorsTable {
  id: Generated<number>;
  /** SHA-256 hex of the visitor's credential; the credential itself is never stored. */
  token_hash: string;
  /** What agents see as `YQToken`; grants nothing on the visitor API. */
  public_id: string;
  name: string;
  phone: string;
  email: string;
  channel: string;
  /** Conversation state: 'end' (none open), 'robot', 'wait' (queued) or 'current' (with service_id). */
  state: string;
  service_id: string | null;
  online: number;
  /** Visitor messages the agent has not read yet. */
  unread: number;
  umsg: number;
  smsg: number;
  /** Highest message seq handed out; the next message takes last_seq + 1. */
  last_seq: number;
  ip: string;
  region: string;
  /** GB/T 2260 code of `region` (a province, city or the abroad pseudo-code), '' when unknown. */
  region_code: Generated<string>;
  user_agent: string;
  platform: string;
  browser: string;
  device: string;
  referrer: string;
  engine: string;
  keyword: string;
  first_url: string;
  lang: string;
  wait_since: string | null;
  created_at: string;
  last_seen_at: string;
  /** The chat link the visitor first arrived through; null when none, or once that link is deleted. */
  link_id: number | null;
  /** The referrer's host, '' for none: the source when no chat link names one. */
  source: Generated<string> /** The site's user id once identified (migration 032); null while anonymous. */;
  user_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The identified visitor's credential, sealed, handed to each browser its user identifies on. */
  identity_credential: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON object of the site's attributes (CONTRACT §13). */
  attributes: ColumnType<string, string | undefined, string>;
  /** The identified visitor this anonymous one's history moved into; it opens nothing since. */
  merged_into: ColumnType<number | null, number | null | undefined, number | null>;
}

/** A visitor as read: the row domain events carry, and every module that works on a visitor. */
export type VisitorRow = Selectable<VisitorsTable>;

/**
 * What a visitor's message path reads of its visitor: its listeners, the outboxes, the robot. The rest of
 * the row (the browser's strings, the page it came from, its attributes) is left in the database.
 */
export const MESSAGE_PATH_COLUMNS = [
  'id',
  'public_id',
  'name',
  'state',
  'service_id',
  'last_seq',
  'unread',
  'umsg',
  'smsg',
  'region',
  'region_code',
  'channel',
  'user_id',
  'lang',
] as const satisfies readonly (keyof VisitorRow)[];
export type MessagePathVisitor = Pick<VisitorRow, (typeof MESSAGE_PATH_COLUMNS)[number]>;

export interface MessagesTable {
  id: Generated<number>;
  visitor_id: number;
  seq: number;
  only_id: string;
  role: string;
  type: string;
  msg: string;
  nickname: string;
  service_id: string | null;
  withdrawn: number;
  created_at: string;
  /** The robot's suggested questions, one a line; '' on every other message. */
  suggestions: ColumnType<string, string | undefined, string>;
  /** A message to a WeChat visitor: 'pending', 'sent' or 'failed'; null otherwise (migration 027). */
  delivery: ColumnType<string | null, string | null | undefined, string | null>;
  delivery_error: ColumnType<string | null, string | null | undefined, string | null>;
  /** The API token's name an agent's message was sent with (migration 031); null otherwise. */
  via: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A message as read: the row every layer carries, from the conversations' writes to the visitor's views. */
export type MessageRow = Selectable<MessagesTable>;

export interface WeChatUsersTable {
  id: Generated<number>;
  channel: string;
  openid: string;
  unionid: string;
  visitor_id: number;
  /** The visitor's credential, sealed. */
  credential: string;
  created_at: string;
  /** The last message or window-opening event (migration 034): replies may follow for 48 hours. */
  last_interaction_at: string | null;
  /** Replies sent since the last interaction, held to the quota. */
  window_sent: Generated<number>;
  /** 1 subscribed, 0 unsubscribed, null not known. */
  subscribed: number | null;
  /** When the user was last asked for a score as text. */
  rating_asked_at: string | null;
}

export interface WeChatPushesTable {
  channel: string;
  push_key: string;
  created_at: string;
}

export interface WeChatOutboxTable {
  id: Generated<number>;
  message_id: number;
  visitor_id: number;
  attempts: ColumnType<number, number | undefined, number>;
  next_at: string;
  claimed_until: string | null;
  created_at: string;
}

/** A claim on a name until a time (`db/claims.ts`). */
export interface ClaimsTable {
  name: string;
  until: string;
}

export interface WeChatTokensTable {
  app_key: string;
  /** Sealed. */
  token: string;
  expires_at: string;
}

export interface WeChatStatusTable {
  channel: string;
  last_received_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  /** The last error as a code the console words (migration 034), and its detail (WeChat's errcode, …). */
  last_error_code: string | null;
  last_error_detail: string | null;
}

/** An internal note on a conversation: agents read it, the visitor never does (migration 025). */
export interface ConversationNotesTable {
  id: Generated<number>;
  visitor_id: number;
  conversation_id: number;
  only_id: string;
  /** The author's uuid. */
  service_id: string;
  nickname: string;
  msg: string;
  /** The visitor's last seq when the note was written: where it sits among the messages. */
  after_seq: number;
  created_at: string;
}

/** An agent a note names with `@username`. */
export interface NoteMentionsTable {
  note_id: number;
  agent_uuid: string;
  conversation_id: number;
  visitor_id: number;
}

export interface VisitsTable {
  id: Generated<number>;
  visitor_id: number;
  url: string;
  title: string;
  created_at: string;
}

export interface ConversationsTable {
  id: Generated<number>;
  visitor_id: number;
  service_id: string | null;
  first_seq: number;
  last_seq: number;
  score: number | null;
  comment: string;
  started_at: string;
  ended_at: string | null;
  /** Messages other than tips, kept as they are stored (statistics). */
  messages: Generated<number>;
  /** From the visitor's first message to the first agent answer after it; null until there is one. */
  first_response_ms: Generated<number | null>;
}

/** A conversation label of the managed list; `name_key` is the name in lower case, unique. */
export interface LabelsTable {
  id: Generated<number>;
  name: string;
  name_key: string;
  color: string;
  description: Generated<string>;
  created_at: string;
}

/** A label on a conversation. */
export interface ConversationLabelsTable {
  conversation_id: number;
  label_id: number;
  created_at: string;
}

/** Every change of an agent's availability as the statistics see it: online, hidden or offline. */
export interface AgentStateLogTable {
  id: Generated<number>;
  agent_uuid: string;
  state: string;
  at: string;
}

/**
 * A closed site day's statistics in one zone: the day's totals (`dim` '', `name` '') and each value of a
 * dimension. `visitors` and `talkers` are distinct within the day.
 */
export interface CensusDaysTable {
  zone: string;
  day: string;
  dim: string;
  name: string;
  visitors: number;
  visits: number;
  conversations: number;
  talkers: number;
  messages: number;
  rated: number;
  score_sum: number;
}

/** How many conversations of a closed day had a value (`what`: first_response, duration), per agent ('' for all). */
export interface CensusDayValuesTable {
  zone: string;
  day: string;
  what: string;
  agent: string;
  seconds: number;
  n: number;
}

/** A closed month whose value counts are summed into census_month_values (migration 020). */
export interface CensusMonthsTable {
  zone: string;
  month: string;
}

/** census_day_values summed over a closed month (`month`: YYYY-MM in the zone). */
export interface CensusMonthValuesTable {
  zone: string;
  month: string;
  what: string;
  agent: string;
  seconds: number;
  n: number;
}

/** Per closed month and agent: conversations begun in it and their messages. */
export interface CensusMonthAgentsTable {
  zone: string;
  month: string;
  agent: string;
  conversations: number;
  messages: number;
}

/** A conversation handed from one agent (or the queue: null) to another. */
export interface ConversationTransfersTable {
  id: Generated<number>;
  conversation_id: number;
  from_service_id: string | null;
  to_service_id: string;
  at: string;
}

/** A timed auto answer of an open conversation; at most one row per visitor and kind. */
export interface ConversationTimersTable {
  id: Generated<number>;
  visitor_id: number;
  /** 'idle', 'agentSilent' or 'autoClose'. */
  kind: string;
  due_at: string;
  /** Set while a process acts on the row; past it, another process may take the row over. */
  claimed_until: string | null;
}

/** What agents note about a visitor; at most one row per visitor. */
export interface VisitorNotesTable {
  visitor_id: number;
  remark: string;
  /** JSON array of short labels. */
  tags: string;
  updated_at: string;
}

export interface MonitorsTable {
  id: Generated<number>;
  visitor_id: number;
  agent_uuid: string;
  created_at: string;
}

export interface LettersTable {
  id: Generated<number>;
  visitor_id: number | null;
  name: string;
  phone: string;
  email: string;
  content: string;
  ip: string;
  read: number;
  created_at: string;
  read_at: string | null;
  handled: Generated<number>;
  /** The nickname of the agent who marked it handled; null while it is not. */
  handled_by: string | null;
  handled_at: string | null;
  note: Generated<string>;
}

export interface UploadsTable {
  id: Generated<number>;
  /** The random file name under DATA_DIR/uploads, also the last part of its URL. */
  name: string;
  original_name: string;
  mime: string;
  size: number;
  visitor_id: number | null;
  agent_id: number | null;
  created_at: string;
  /** The uploader's address as the per-address quota counts it (IPv6 by its /64); null for older uploads. */
  ip: string | null;
  /** 1 once the sweep has seen an image or file message holding this upload's URL; such uploads are kept. */
  referenced: Generated<number>;
}

export interface AgentPresenceTable {
  agent_uuid: string;
  /** The server process holding the socket; each process refreshes its rows while they live. */
  node_id: string;
  seen_at: string;
}

export interface LoginAttemptsTable {
  /** `account:<address>:<username>` or `address:<address>`. */
  key: string;
  /** Failed and in-flight attempts since window_start. */
  attempts: number;
  window_start: string;
  /** `user:<username>` keys past their limit: the next attempt waits until then. */
  blocked_until: Generated<string | null>;
}

export interface MfaRecoveryCodesTable {
  id: Generated<number>;
  agent_id: number;
  /** SHA-256 hex of the normalised code. */
  code_hash: string;
  used_at: string | null;
  created_at: string;
}

export interface MfaTicketsTable {
  /** SHA-256 hex of the ticket handed to the client. */
  ticket_hash: string;
  agent_id: number;
  ip: string;
  user_agent: string;
  failures: Generated<number>;
  used: Generated<number>;
  expires_at: string;
}

export interface NoticesTable {
  id: Generated<number>;
  /** The one agent it is for; null for an audience. */
  agent_id: number | null;
  audience: 'agent' | 'admins';
  /** Names the notice's title and text (modules/notices/service.ts). */
  kind: string;
  /** JSON object of the text's parameters. */
  params: string;
  created_at: string;
}

export interface FriendlyTable {
  id: Generated<number>;
  name: string;
  company: string;
  phone: string;
  email: string;
  wechat: string;
  remark: string;
  created_at: string;
}

export interface LinksTable {
  id: Generated<number>;
  name: string;
  /** The `link` parameter of `/chat?link=<key>`; unique. */
  key: string;
  /** The uuid of the agent the link's visitors go to first, if any. */
  service_id: string | null;
  remark: string;
  created_at: string;
}

/** One chat-window settings page; `value` is the page's JSON, validated when saved and read. */
export interface SettingsTable {
  page: string;
  value: string;
  updated_at: string;
  /** The uuid of the agent who saved it last. */
  updated_by: string | null;
}

/** A question-answer pair of the robot; `questions` holds its phrasings one per line. */
export interface RobotAsksTable {
  id: Generated<number>;
  questions: string;
  first_question: string;
  answer: string;
  image: string;
  category: string;
  enabled: number;
  /** How many times the robot gave this answer. */
  hits: Generated<number>;
  /** How many times agents sent this answer as it was suggested to them (agent assist, migration 033). */
  assists: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** A question visitors asked the robot, and the pair it reached (0: none, unanswered) (migration 033). */
export interface RobotQuestionsTable {
  id: Generated<number>;
  text_key: string;
  text: string;
  pair_id: number;
  times: Generated<number>;
  last_at: string;
  dismissed: Generated<number>;
}

/** A confirmation mail of a transcript address (migration 024); a used one proves the visitor holds it. */
export interface TranscriptConfirmationsTable {
  id: Generated<number>;
  visitor_id: number;
  /** SHA-256 hex of the lower-cased address. */
  email_hash: string;
  /** SHA-256 hex of the token in the link. */
  token_hash: string;
  /** The requester's address, which the per-requester limit counts. */
  ip: string;
  lang: string;
  created_at: string;
  expires_at: string;
  confirmed_at: string | null;
}

/** An address that asked for no more mail. */
export interface MailStopsTable {
  email_hash: string;
  created_at: string;
}

/** The unsubscribe link of one mail. */
export interface MailStopTokensTable {
  token_hash: string;
  email_hash: string;
  lang: string;
  created_at: string;
}

export interface ApiTokensTable {
  id: Generated<number>;
  agent_id: number;
  name: string;
  token_hash: string;
  /** JSON list of permissions (and `Admin`) the token was given. */
  permissions: string;
  created_at: string;
  expires_at: string | null;
  /** Written at most once a minute. */
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A webhook (CONTRACT §12); `secret` and `previous_secret` are sealed. */
export interface WebhooksTable {
  id: Generated<number>;
  url: string;
  /** JSON list of the events it takes. */
  events: string;
  enabled: number;
  secret: string;
  previous_secret: string | null;
  previous_until: string | null;
  failures: Generated<number>;
  created_at: string;
  updated_at: string;
  /** When it took `message.created`, as spans of message ids (JSON, migration 040; see message-spans.ts). */
  message_spans: string | null;
}

/** One event on its way to one webhook: the outbox the delivery worker drains. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  uuid: string;
  webhook_id: number;
  event_id: string;
  event: string;
  order_key: string | null;
  /** The stored fact it tells (`message:<id>`), unique per webhook; null for those that need no recovery. */
  source: string | null;
  body: string;
  status: string;
  attempts: Generated<number>;
  response_code: number | null;
  error: string | null;
  created_at: string;
  last_attempt_at: string | null;
  next_at: string | null;
  claimed_until: string | null;
}

/** An event queued for webhooks, waiting to be turned into one delivery per webhook (migration 036). */
export interface WebhookEventsTable {
  id: Generated<number>;
  event_id: string;
  event: string;
  order_key: string | null;
  source: string | null;
  body: string;
  /** The webhooks that took it when it was queued: a JSON list of ids. */
  webhook_ids: string;
  created_at: string;
  /** The newest message id when it was queued (SQLite, migration 040): it is told after those messages, before the next. */
  messages_mark: number | null;
}

/** How far the delivery worker has read a queue, kept beside the deliveries it made of it (SQLite's `webhooks.db` only). */
export interface WebhookProgressTable {
  name: string;
  value: number;
}

/** How far the upload sweep has read messages (one row, id 1): see modules/uploads/sweep.ts. */
export interface UploadMarksTable {
  id: number;
  messages_up_to: number;
}

/** The server's VAPID key pair (one row, id 1); `private_key` is sealed. */
export interface PushKeysTable {
  id: number;
  public_key: string;
  private_key: string;
  created_at: string;
}

/** A browser of an agent that receives Web Push (CONTRACT §14). */
export interface PushSubscriptionsTable {
  id: Generated<number>;
  agent_id: number;
  endpoint: string;
  p256dh: string;
  auth: string;
  user_agent: string;
  /** The language of the console that subscribed: what the notifications are written in. */
  lang: string;
  created_at: string;
  last_sent_at: Generated<string | null>;
  last_failed_at: Generated<string | null>;
  last_error: Generated<string | null>;
}

/** A visible console of an agent on a process, refreshed as `agent_presence` is. */
export interface PushVisibleTable {
  agent_uuid: string;
  node_id: string;
  seen_at: string;
}

export interface Database {
  roles: RolesTable;
  agents: AgentsTable;
  sessions: SessionsTable;
  login_log: LoginLogTable;
  audit_log: AuditLogTable;
  api_tokens: ApiTokensTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_events: WebhookEventsTable;
  webhook_progress: WebhookProgressTable;
  visitors: VisitorsTable;
  messages: MessagesTable;
  visits: VisitsTable;
  conversations: ConversationsTable;
  conversation_timers: ConversationTimersTable;
  labels: LabelsTable;
  conversation_labels: ConversationLabelsTable;
  visitor_notes: VisitorNotesTable;
  monitors: MonitorsTable;
  letters: LettersTable;
  uploads: UploadsTable;
  upload_marks: UploadMarksTable;
  agent_presence: AgentPresenceTable;
  login_attempts: LoginAttemptsTable;
  mfa_recovery_codes: MfaRecoveryCodesTable;
  mfa_tickets: MfaTicketsTable;
  notices: NoticesTable;
  friendly: FriendlyTable;
  links: LinksTable;
  settings: SettingsTable;
  robot_asks: RobotAsksTable;
  robot_questions: RobotQuestionsTable;
  agent_state_log: AgentStateLogTable;
  conversation_transfers: ConversationTransfersTable;
  census_days: CensusDaysTable;
  census_day_values: CensusDayValuesTable;
  census_months: CensusMonthsTable;
  census_month_values: CensusMonthValuesTable;
  census_month_agents: CensusMonthAgentsTable;
  transcript_confirmations: TranscriptConfirmationsTable;
  mail_stops: MailStopsTable;
  mail_stop_tokens: MailStopTokensTable;
  wechat_users: WeChatUsersTable;
  wechat_pushes: WeChatPushesTable;
  wechat_outbox: WeChatOutboxTable;
  wechat_tokens: WeChatTokensTable;
  claims: ClaimsTable;
  wechat_status: WeChatStatusTable;
  conversation_notes: ConversationNotesTable;
  note_mentions: NoteMentionsTable;
  push_keys: PushKeysTable;
  push_subscriptions: PushSubscriptionsTable;
  push_visible: PushVisibleTable;
}
