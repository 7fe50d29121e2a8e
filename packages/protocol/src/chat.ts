import { z } from 'zod';
import type { Attributes } from './identity.js';
import { linkKey, onlyId, visitorId, yqToken } from './ids.js';
import { line, multiline } from './strings.js';
import { MAX_MESSAGE_LENGTH } from './text.js';

export type VisitorState = 'wait' | 'current' | 'end' | 'robot' | 'monitor';
export type Channel = 'web' | 'officialAccount' | 'miniProgram';
export type MessageRole = 'user' | 'service' | 'tip' | 'robot';
export type MessageType = 'text' | 'image' | 'file';

export const CHANNELS = ['web', 'officialAccount', 'miniProgram'] as const;
export const MESSAGE_TYPES = ['text', 'image', 'file'] as const;

export interface Message {
  id: number;
  YQToken: string;
  /** Per visitor: 1, 2, 3 … with no gaps, assigned when the message is stored. */
  seq: number;
  onlyID: string;
  role: MessageRole;
  type: MessageType;
  msg: string;
  nickname: string;
  serviceID: string | null;
  /** ISO 8601 */
  time: string;
  withdrawn: boolean;
  /**
   * Questions the robot offers when it did not understand (role `robot` only): the widget draws them as
   * chips that send the question. Absent on every other message, so older clients are unaffected.
   */
  suggestions?: string[];
  /**
   * An agent's message sent by a program with an API token (a site's own bot, an integration): the token's
   * name. Absent on what a person sent.
   */
  via?: string;
  /**
   * Whether a message to a WeChat visitor reached WeChat (§11): null for web visitors and for messages
   * the visitor sent. `deliveryError` says why one failed (`windowClosed`, `quotaExceeded`, …).
   */
  delivery?: MessageDelivery | null;
  deliveryError?: string | null;
}

export type MessageDelivery = 'sent' | 'pending' | 'failed';

/** A message's delivery to WeChat changed (socket code 8020 to the conversation's agents). */
export interface DeliveryUpdate {
  YQToken: string;
  id: number;
  onlyID: string;
  delivery: MessageDelivery;
  deliveryError: string | null;
}

export interface Visitor {
  YQToken: string;
  nickname: string;
  state: VisitorState;
  serviceID: string | null;
  unreadNumber: number;
  umsg: number;
  smsg: number;
  online: boolean;
  /** When the visitor's last page closed, as the console heard it (ISO); absent while it is on the site. */
  leftAt?: string;
  channel: Channel;
  region: string;
  platform: string;
  browser: string;
  referrer: string;
  engine: string;
  keyword: string;
  firstUrl: string;
  created_at: string;
  lastMessage: Message | null;
  /** CONTRACT §13: the site's user id once identified (null: anonymous), and what the site told of them. */
  userId?: string | null;
  name?: string;
  email?: string;
  phone?: string;
  attributes?: Attributes;
}

export interface Visit {
  URL: string;
  title: string;
  created_at: string;
}

/** An agent as other agents see it, e.g. to transfer a conversation (`GET /api/talk/agents`). */
export interface AgentPeer {
  uuid: string;
  nickname: string;
  avatar: string;
  /** '0' online, '1' hidden. */
  state: '0' | '1';
  /** Has a console open now. */
  online: boolean;
  /** The login name: agents may share a nickname. */
  username: string;
  /** Conversations the agent holds now, and at most. */
  open: number;
  maxChats: number;
}

type ContactField = 'name' | 'phone' | 'email';

/** One launcher (takeIcon page, CONTRACT §8). */
export interface LauncherSettings {
  show: boolean;
  style: 'bubble' | 'bar' | 'image';
  position: 'right' | 'left';
  /** Pixels from the bottom and from the side edge. */
  bottom: number;
  side: number;
  color: string;
  text: string;
  image: string;
  delaySeconds: number;
}

/** One invitation box (invitationBox page, CONTRACT §8). */
export interface InvitationSettings {
  enabled: boolean;
  delaySeconds: number;
  intervalSeconds: number;
  maxTimes: number;
  text: string;
  acceptText: string;
  laterText: string;
  image: string;
  /** Weekdays (0 Sunday) to invite on; absent every day. */
  days?: number[];
  /** Hours of the day to invite in; absent all day. */
  hours?: { from: string; to: string };
}

export interface FloatNavigationSettings {
  enabled: boolean;
  side: 'right' | 'left';
  /** Percent of the page's height from its top. */
  top: number;
  color: string;
  items: { type: 'chat' | 'phone' | 'qq' | 'wechat' | 'link' | 'top'; title: string; value: string }[];
}

/** What the widget needs to draw itself; taken from the chat-window settings pages by `toWidgetSettings`. */
export interface WidgetSettings {
  /** Main colour of the launcher, header and the visitor's bubbles (#rrggbb). */
  color: string;
  /** Title of the chat window. */
  title: string;
  /** First message shown to a visitor before anyone answers. */
  welcome: string;
  /** Text beside the launcher icon; empty shows the icon alone (the pc launcher's). */
  launcherText: string;
  position: 'right' | 'left';
  /** An image URL for the launcher; empty uses the built-in icon. */
  icon: string;
  launcher: { pc: LauncherSettings; mobile: LauncherSettings };
  floatNavigation: FloatNavigationSettings;
  window: {
    logo: string;
    agentAvatar: string;
    intro: string;
    ad: { image: string; url: string };
    width: number;
    height: number;
  };
  /** Ask name (and the listed fields) before the first message. */
  preChat: { enabled: boolean; fields: ContactField[]; required: ContactField[] };
  /** Fields of the leave-a-message form shown when no agent is online. */
  letter: { fields: ContactField[]; required: ContactField[] };
  /** The pc invitation in short, as older widgets read it. */
  invitation: { enabled: boolean; delaySeconds: number; text: string };
  invitationBox: { pc: InvitationSettings; mobile: InvitationSettings };
  /** Whether an agent can take the visitor now: one is online, it is work time and the region is not blocked. */
  online: boolean;
  /** `open` is false outside the work hours; `offlineText` is then what to show. */
  workHours: { enabled: boolean; open: boolean; offlineText: string };
  /** Ask for a 1–5 rating when a conversation ends. */
  rating: boolean;
  /** A conversation the visitor leaves silent this long is ended; 0 never. */
  autoCloseMinutes: number;
  /** Longest message the visitor may send. */
  maxLength: number;
  /** Whether the visitor may upload, the largest upload in bytes, and the accepted MIME types. */
  upload: { enabled: boolean; maxBytes: number; types: string[] };
  /** A blocked region may not chat and is shown `text`; a tip region is shown `text` alone. */
  region: { blocked: boolean; text: string };
  /** Whether the site mails a visitor the transcript of each conversation, to an address they confirmed. */
  transcript: boolean;
  /** The site's time zone (IANA): the invitation's days and hours are read on its clocks, not the visitor's. */
  timeZone: string;
  /**
   * The smart robot, when it would answer a conversation opened now (mode `first`, or nobody can take
   * it): the window then offers the chat, not the leave-a-message form. Absent when it would not.
   */
  robot?: { name: string; avatar: string };
}

const pageUrl = line(z.string().trim().max(2048));
const seq = z.coerce.number().int().min(0);

export const visitorInitBody = z.object({
  YQToken: yqToken.optional(),
  url: pageUrl.min(1),
  title: line(z.string().max(512)).optional(),
  referrer: line(z.string().max(2048)).optional(),
  lang: line(z.string().max(35)).optional(),
  channel: z.enum(CHANNELS).optional(),
  /** The chat link the visitor arrived through; an unknown key is ignored. */
  link: linkKey.optional(),
});

export const messageBody = z.object({
  YQToken: yqToken,
  msg: multiline(z.string().min(1).max(MAX_MESSAGE_LENGTH)),
  onlyID: onlyId,
  type: z.enum(MESSAGE_TYPES).optional(),
});

export const visitBody = z.object({ YQToken: yqToken, url: pageUrl.min(1), title: line(z.string().max(512)).optional() });

export const messagesQuery = z.object({
  YQToken: yqToken,
  afterSeq: seq.optional(),
  beforeSeq: seq.optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export const letterBody = z.object({
  YQToken: yqToken.optional(),
  name: line(z.string().trim().min(1).max(64)),
  phone: line(z.string().trim().max(32))
    .regex(/^[\d\s+()-]*$/)
    .optional(),
  email: z.union([z.literal(''), z.email().max(254)]).optional(),
  content: multiline(z.string().trim().min(1).max(2000)),
});

/** The pre-chat form's answers: who the visitor says they are, kept with the visitor. */
export const visitorContactBody = z.object({
  YQToken: yqToken,
  name: line(z.string().trim().max(64)).optional(),
  phone: line(z.string().trim().max(32))
    .regex(/^[\d\s+()-]*$/)
    .optional(),
  email: z.union([z.literal(''), z.email().max(254)]).optional(),
});

/**
 * What became of the transcript mails when the visitor gave an address: `none` (no address, or the site
 * mails no transcripts), `sent` (a confirmation link is on its way: only once it is opened do transcripts
 * go there), `confirmed` (this visitor already confirmed it), `limited` (too many confirmation mails were
 * asked for lately; none was sent).
 */
export type TranscriptOffer = 'none' | 'sent' | 'confirmed' | 'limited';

/** The visitor asks the robot for a person ("talk to a person"). */
export const handoverBody = z.object({ YQToken: yqToken });

export const rateBody = z.object({
  YQToken: yqToken,
  score: z.number().int().min(1).max(5),
  comment: multiline(z.string().trim().max(500)).optional(),
});

export const conversationBody = z.object({ YQToken: visitorId });
/** `serviceID` names the receiving agent, or `queue` to put the visitor back in the queue. */
export const TRANSFER_TO_QUEUE = 'queue';
export const transferBody = z.object({ YQToken: visitorId, serviceID: z.union([z.string().uuid(), z.literal(TRANSFER_TO_QUEUE)]) });
export const withdrawBody = z.object({ YQToken: visitorId, onlyID: onlyId });
/** The agent side of messageBody and messagesQuery: the visitor is named by its public id. */
/**
 * `assist`: the pair whose suggested answer (agent assist, `8016`) the agent inserted before sending, edited
 * or not; the server counts it as used.
 */
export const agentMessageBody = messageBody.extend({ YQToken: visitorId, assist: z.coerce.number().int().positive().optional() });
/** An 8100 of the widget: the socket already names the visitor. */
export const visitorSendData = messageBody.omit({ YQToken: true });
/** An 8100 of the console: the HTTP send's body as it is. */
export const agentSendData = agentMessageBody;
export const agentMessagesQuery = messagesQuery.extend({ YQToken: visitorId });
export const agentStateBody = z.object({ state: z.enum(['0', '1']) });
export const typingData = z.object({ text: multiline(z.string().max(MAX_MESSAGE_LENGTH)) });
