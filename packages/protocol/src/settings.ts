import { z } from 'zod';
import { isWebAddress, isWebUrl, isWeChatId } from './addresses.js';
import type { WidgetSettings } from './chat.js';
import { weekTimeIn } from './clock.js';
import { inkOn } from './contrast.js';
import { endpointGroup, returns } from './endpoint.js';
import { visitorId } from './ids.js';
import { line, multiline, REQUIRED } from './strings.js';
import { MAX_MESSAGE_LENGTH } from './text.js';

/** The chat-window settings pages of CONTRACT §8, each stored and answered whole. */
export const SETTINGS_PAGES = [
  'takeIcon',
  'floatNavigation',
  'region',
  'windowStyle',
  'windowSetting',
  'quickReply',
  'softwareSetting',
  'invitationBox',
  'weChatSetting',
  'autoAnswer',
  'desktopSetting',
  'appSetting',
] as const;
export type SettingsPage = (typeof SETTINGS_PAGES)[number];

export function isSettingsPage(value: string): value is SettingsPage {
  return (SETTINGS_PAGES as readonly string[]).includes(value);
}

export const UPLOAD_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
export const UPLOAD_FILE_TYPES = [
  'application/pdf',
  'text/plain',
  'application/zip',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
];

const text = (max: number) => line(z.string().trim().max(max));
const longText = (max: number) => multiline(z.string().max(max));
const flag = (value: boolean) => z.boolean().default(value);
const whole = (min: number, max: number, value: number) => z.number().int().min(min).max(max).default(value);
const colour = z.string().regex(/^#[0-9a-fA-F]{6}$/);
/** Shown as an image or followed as a link: only web addresses and the server's own paths. */
const webAddress = text(2048).refine((value) => value === '' || isWebAddress(value));
const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/);
const weekday = z.number().int().min(0).max(6);

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
/** An IANA zone; empty means the zone of the next level up (the site's, then the server's). */
const timeZone = text(64).refine((value) => value === '' || isTimeZone(value));

const CONTACT_FIELDS = ['name', 'phone', 'email'] as const;
const contactFields = z.array(z.enum(CONTACT_FIELDS)).max(CONTACT_FIELDS.length);
/** A form's shown and required fields; a required field must be shown. */
const contactForm = (fields: (typeof CONTACT_FIELDS)[number][], required: (typeof CONTACT_FIELDS)[number][]) =>
  z
    .object({ fields: contactFields.default(fields), required: contactFields.default(required) })
    .refine((form) => form.required.every((field) => form.fields.includes(field)), { path: ['required'] });

// ——— takeIcon: the launcher ———
const launcher = (bottom: number) =>
  z.object({
    show: flag(true),
    style: z.enum(['bubble', 'bar', 'image']).default('bubble'),
    position: z.enum(['right', 'left']).default('right'),
    bottom: whole(0, 2000, bottom),
    side: whole(0, 2000, bottom),
    color: colour.default('#1677ff'),
    text: text(32).default(''),
    image: webAddress.default(''),
    delaySeconds: whole(0, 3600, 0),
  });
const takeIcon = z.object({ pc: launcher(24).prefault({}), mobile: launcher(16).prefault({}) });

// ——— floatNavigation ———
const navigationItem = z
  .object({
    type: z.enum(['chat', 'phone', 'qq', 'wechat', 'link', 'top']),
    title: text(32),
    value: text(2048).default(''),
  })
  .refine((item) => item.type !== 'link' || isWebUrl(item.value), { path: ['value'] })
  // The widget shows a WeChat item's ID as text, or the image at its address (the account's QR code).
  .refine((item) => item.type !== 'wechat' || isWeChatId(item.value) || isWebAddress(item.value), { path: ['value'] });
const floatNavigation = z.object({
  enabled: flag(false),
  side: z.enum(['right', 'left']).default('right'),
  /** Distance from the top of the page, in percent of its height. */
  top: whole(0, 100, 40),
  color: colour.default('#1677ff'),
  items: z.array(navigationItem).max(12).default([]),
});

// ——— region ———
/** A rule that assigns names its agent: without one it would match the region and route nowhere. */
const regionRule = z
  .object({
    codes: z.array(text(32).min(1)).min(1).max(500),
    action: z.enum(['block', 'assign', 'tip']),
    serviceID: z.uuid().optional(),
    text: longText(500).optional(),
  })
  .refine((rule) => rule.action !== 'assign' || rule.serviceID !== undefined, {
    path: ['serviceID'],
    params: { reason: REQUIRED },
  });
const region = z.object({ rules: z.array(regionRule).max(100).default([]) });

// ——— windowStyle ———
const windowStyle = z.object({
  color: colour.default('#1677ff'),
  title: text(64).default('在线客服'),
  logo: webAddress.default(''),
  agentAvatar: webAddress.default(''),
  intro: longText(1000).default(''),
  ad: z.object({ image: webAddress.default(''), url: webAddress.default('') }).prefault({}),
  width: whole(300, 1200, 380),
  height: whole(400, 1200, 600),
});

// ——— windowSetting ———
const workDay = z.object({ day: weekday, from: clock, to: clock }).refine((span) => span.from < span.to, { path: ['to'] });
const windowSetting = z.object({
  welcome: longText(1000).default('您好，有什么可以帮您？'),
  preChat: contactForm(['name'], [])
    .safeExtend({ enabled: flag(false) })
    .prefault({}),
  letter: contactForm(['name', 'phone', 'email'], ['name']).prefault({}),
  workHours: z
    .object({
      enabled: flag(false),
      timezone: timeZone.default(''),
      days: z
        .array(workDay)
        .max(21)
        .default([1, 2, 3, 4, 5].map((day) => ({ day, from: '09:00', to: '18:00' }))),
      offlineText: longText(500).default('现在是非工作时间，请留言，我们会尽快联系您。'),
    })
    .prefault({}),
  rating: flag(true),
  /** A conversation the visitor has left silent this long is ended; 0 never. */
  autoCloseMinutes: whole(0, 1440, 30),
  maxLength: whole(1, MAX_MESSAGE_LENGTH, MAX_MESSAGE_LENGTH),
});

// ——— quickReply ———
const quickReply = z.object({
  groups: z
    .array(
      z.object({
        name: text(32).min(1),
        items: z.array(z.object({ title: text(64).min(1), content: longText(2000).min(1) })).max(100),
      }),
    )
    .max(50)
    .default([]),
});

// ——— softwareSetting ———
const email = z.email().max(254);
const smtp = z.object({
  host: text(255).min(1),
  port: z.number().int().min(1).max(65535),
  secure: z.boolean(),
  user: text(255).default(''),
  password: line(z.string().max(256)).default(''),
  from: email,
  to: z.array(email).max(20).default([]),
});
const softwareSetting = z.object({
  siteName: text(64).default('Parley'),
  logo: webAddress.default(''),
  /** The site's time zone; empty keeps the server's configured one. */
  timezone: timeZone.default(''),
  uploadMaxMB: whole(1, 100, 10),
  /** Conversations, messages, visits and letters older than this are purged; 0 keeps them forever. */
  retentionDays: whole(0, 3650, 0),
  /** Overrides the server's SMTP configuration for mails; null keeps it. */
  smtp: smtp.nullable().default(null),
});

// ——— invitationBox ———
const invitation = (delaySeconds: number) =>
  z.object({
    enabled: flag(false),
    delaySeconds: whole(0, 3600, delaySeconds),
    intervalSeconds: whole(0, 86_400, 60),
    maxTimes: whole(0, 100, 3),
    text: longText(500).default('您好，需要帮助吗？点击与我们聊天'),
    acceptText: text(32).default('现在咨询'),
    laterText: text(32).default('稍后再说'),
    image: webAddress.default(''),
    /** Weekdays (0 Sunday) to invite on; absent every day. */
    days: z.array(weekday).max(7).optional(),
    /** Hours of the day to invite in, site time; absent all day. */
    hours: z
      .object({ from: clock, to: clock })
      .refine((span) => span.from < span.to, { path: ['to'] })
      .optional(),
  });
const invitationBox = z.object({ pc: invitation(15).prefault({}), mobile: invitation(20).prefault({}) });

// ——— weChatSetting ———
const weChatFields = {
  /** Off: the channel's push URL answers 404 and nothing is sent to WeChat (§11). */
  enabled: flag(false),
  appId: text(64).default(''),
  appSecret: text(128).default(''),
  token: text(128).default(''),
  /** The EncodingAESKey of safe mode (43 base64 characters); '' for plaintext pushes only. */
  aesKey: text(64).default(''),
};
const weChatSetting = z.object({
  officialAccount: z.object(weChatFields).prefault({}),
  /** A mini program may push JSON instead of XML, as its console sets it. */
  miniProgram: z.object({ ...weChatFields, format: z.enum(['xml', 'json']).default('xml') }).prefault({}),
  /**
   * Replies a user may receive per message they send, within WeChat's 48-hour window (WeChat's own rule
   * is 5): past it the server refuses a reply (`quotaExceeded`) rather than have WeChat refuse it.
   */
  windowQuota: whole(1, 20, 5),
});
export type WeChatChannel = 'officialAccount' | 'miniProgram';
export const weChatTestBody = z.object({ channel: z.enum(['officialAccount', 'miniProgram']) });
/** The agent of a WeChat user's conversation types (`typing`), or cleared the draft: WeChat's typing indicator. */
export const weChatTypingBody = z.object({ YQToken: visitorId, typing: z.boolean() });
/** `ok`: WeChat gave a token; else its errcode (0 when it could not be reached) and what it said ('' when no AppID and AppSecret are saved). */
export interface WeChatTestAnswer {
  ok: boolean;
  errcode: number;
  message: string;
}
/** What GET of the weChatSetting page answers beside each channel's fields (§11), never stored. */
export interface WeChatChannelStatus {
  /** The push URL to paste into WeChat's console. */
  serverUrl: string;
  /** `lastError` in English; `lastErrorCode` (with `lastErrorDetail`, e.g. WeChat's errcode) for a console to word. */
  status: { lastReceivedAt: string | null; lastError: string | null; lastErrorCode: WeChatErrorCode | null; lastErrorDetail: string };
}
/**
 * What last went wrong on a channel: a push refused (signature, stale timestamp, another app's body, a body
 * that is no message or does not decrypt), one that could not be stored, or a call to WeChat that failed
 * (WeChat's errcode, an HTTP error, a timeout, no connection, an answer too large).
 */
export const WECHAT_ERROR_CODES = [
  'badSignature',
  'staleTimestamp',
  'otherAppId',
  'badBody',
  'badEncryption',
  'storeFailed',
  'wechatRefused',
  'httpError',
  'timeout',
  'unreachable',
  'tooLarge',
] as const;
export type WeChatErrorCode = (typeof WECHAT_ERROR_CODES)[number];

// ——— autoAnswer ———
const timedText = (minutes: number, value: string) =>
  z.object({ minutes: whole(0, 1440, minutes), text: longText(500).default(value) }).prefault({});
const autoAnswer = z.object({
  greeting: longText(500).default(''),
  queued: longText(500).default('客服正忙，您前面还有 {position} 位，请稍候。'),
  noAgent: longText(500).default('暂时没有客服在线，请留言，我们会尽快联系您。'),
  idle: timedText(0, '您还在吗？'),
  agentSilent: timedText(0, '客服正在处理，请稍候。'),
  keywords: z
    .array(z.object({ words: z.array(text(64).min(1)).min(1).max(20), reply: longText(2000).min(1) }))
    .max(200)
    .default([]),
});

// ——— desktopSetting ———
const desktopSetting = z.object({
  newUserSound: webAddress.default('/sounds/visitor.wav'),
  newMsgSound: webAddress.default('/sounds/message.wav'),
  notifyNewUser: flag(true),
  notifyNewMsg: flag(true),
  /** A conversation transferred to the agent, and a new leave-message (CONTRACT §14), pushed when no console is visible. */
  notifyTransfer: flag(true),
  notifyLetter: flag(true),
  titleBlink: flag(true),
});

// ——— appSetting ———
/** A site that may embed the widget, as a browser's `Origin` names it: scheme, host and port. */
const origin = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^https?:\/\/[a-z0-9.-]+(:\d{1,5})?\/?$/)
  .transform((value) => value.replace(/\/$/, ''));
const appSetting = z.object({
  /** Empty: any site may embed the widget. */
  allowedOrigins: z.array(origin).max(100).default([]),
  visitorUploads: flag(true),
  transcriptEmail: flag(false),
  /**
   * CONTRACT §13: the key of `HMAC-SHA256(identitySecret, id)`, made on the Admin's first read
   * (`GET /api/access/identitySecret`) and sealed at rest; '' until then, when no identity is accepted.
   */
  identitySecret: z.union([z.literal(''), z.string().regex(/^[A-Za-z0-9_-]{32,128}$/)]).default(''),
  /** When on, a visitor the site has not identified cannot send a message (403). */
  requireIdentity: flag(false),
});

/** Each page's schema; `parse({})` gives the page's defaults. */
export const settingsSchemas = {
  takeIcon,
  floatNavigation,
  region,
  windowStyle,
  windowSetting,
  quickReply,
  softwareSetting,
  invitationBox,
  weChatSetting,
  autoAnswer,
  desktopSetting,
  appSetting,
} satisfies Record<SettingsPage, z.ZodType>;

export type SettingsSchemas = typeof settingsSchemas;
export type SettingsOf<P extends SettingsPage> = z.output<SettingsSchemas[P]>;
/** What a client sends for a page: the defaults fill what it leaves out. */
export type SettingsInput<P extends SettingsPage> = z.input<SettingsSchemas[P]>;
export type AllSettings = { [P in SettingsPage]: SettingsOf<P> };

/** A page's defaults, made afresh so that no caller can change another's copy. */
export function defaultsOf<P extends SettingsPage>(page: P): SettingsOf<P> {
  return settingsSchemas[page].parse({}) as SettingsOf<P>;
}

export const settingsDefaults: AllSettings = {
  takeIcon: defaultsOf('takeIcon'),
  floatNavigation: defaultsOf('floatNavigation'),
  region: defaultsOf('region'),
  windowStyle: defaultsOf('windowStyle'),
  windowSetting: defaultsOf('windowSetting'),
  quickReply: defaultsOf('quickReply'),
  softwareSetting: defaultsOf('softwareSetting'),
  invitationBox: defaultsOf('invitationBox'),
  weChatSetting: defaultsOf('weChatSetting'),
  autoAnswer: defaultsOf('autoAnswer'),
  desktopSetting: defaultsOf('desktopSetting'),
  appSetting: defaultsOf('appSetting'),
};

/**
 * Dotted paths of the fields never answered back: GET and POST answer them as '' (whether set or not),
 * and a POST that leaves one empty or absent keeps the stored value.
 */
export const SECRET_FIELDS: Record<SettingsPage, readonly string[]> = {
  takeIcon: [],
  floatNavigation: [],
  region: [],
  windowStyle: [],
  windowSetting: [],
  quickReply: [],
  softwareSetting: ['smtp.password'],
  invitationBox: [],
  weChatSetting: [
    'officialAccount.appSecret',
    'officialAccount.token',
    'officialAccount.aesKey',
    'miniProgram.appSecret',
    'miniProgram.token',
    'miniProgram.aesKey',
  ],
  autoAnswer: [],
  desktopSetting: [],
  appSetting: ['identitySecret'],
};

/** The flag answered beside a secret, true while one is stored: `password` → `hasPassword`. */
export function secretFlag(key: string): string {
  return `has${key.charAt(0).toUpperCase()}${key.slice(1)}`;
}

export interface WeChatAppFlags {
  hasAppSecret: boolean;
  hasToken: boolean;
  hasAesKey: boolean;
}
/** The `secretFlag` of each secret of SECRET_FIELDS, where its page answers it. */
interface SecretFlags {
  softwareSetting: { smtp: { hasPassword: boolean } | null };
  weChatSetting: { officialAccount: WeChatAppFlags; miniProgram: WeChatAppFlags };
  appSetting: { hasIdentitySecret: boolean };
}

/**
 * What GET and POST of a settings page answer: the page, each secret as '' and beside it whether one is
 * stored, so a form can say "leave empty to keep" only when there is something to keep. A page sent
 * back with the flags still in it is taken as is: the page's schema drops keys it does not know.
 */
export type SettingsAnswer<P extends SettingsPage> = SettingsOf<P> &
  (P extends keyof SecretFlags ? SecretFlags[P] : unknown) &
  (P extends keyof AnsweredBeside ? AnsweredBeside[P] : unknown);

/** What a page answers beside its fields and never stores: each WeChat channel's push URL and status (§11). */
interface AnsweredBeside {
  weChatSetting: { officialAccount: WeChatChannelStatus; miniProgram: WeChatChannelStatus };
}

// ——— The widget's projection ———

export type WidgetLanguage = 'zh' | 'en';

export interface WidgetContext {
  lang: WidgetLanguage;
  /** Whether an agent could take the visitor now (before work hours are applied). */
  online: boolean;
  now?: Date;
  /** The codes of the visitor's region (province, city …); rules of the region page match any of them. */
  region?: readonly string[];
  /** The server's configured zone, used when neither the work hours nor the site name one. */
  siteTimeZone?: string;
}

/** English for the texts a site has left at their (Chinese) defaults, so an English visitor reads English. */
const ENGLISH_DEFAULTS: Record<string, string> = {
  在线客服: 'Chat with us',
  '您好，有什么可以帮您？': 'Hello! How can we help you?',
  '现在是非工作时间，请留言，我们会尽快联系您。': 'We are outside our working hours. Leave a message and we will get back to you.',
  '您好，需要帮助吗？点击与我们聊天': 'Hello, need help? Click to chat with us',
  现在咨询: 'Chat now',
  稍后再说: 'Later',
  '客服正忙，您前面还有 {position} 位，请稍候。': 'All our agents are busy. You are number {position} in line; please wait.',
  '暂时没有客服在线，请留言，我们会尽快联系您。': 'No agent is online right now. Leave a message and we will get back to you.',
  '您还在吗？': 'Are you still there?',
  '客服正在处理，请稍候。': 'Your agent is looking into it; please wait a moment.',
};
const REGION_BLOCKED = { zh: '抱歉，您所在的地区暂不提供在线咨询服务。', en: 'Sorry, online chat is not available in your region.' };

/** A configured text as a visitor of this language reads it: a text left at its Chinese default is given in English. */
export function localized(value: string, lang: WidgetLanguage): string {
  return lang === 'en' ? (ENGLISH_DEFAULTS[value] ?? value) : value;
}

/** Whether `now` falls in one of the work-hour spans, read in `zone`. */
export function withinWorkHours(days: readonly { day: number; from: string; to: string }[], zone: string, now: Date): boolean {
  const { day, time } = weekTimeIn(zone, now);
  return days.some((span) => span.day === day && span.from <= time && time < span.to);
}

/** Whether `now` is within the work hours of the chat-window settings (always, when they are off). */
export function isWorkingNow(
  pages: Pick<AllSettings, 'windowSetting' | 'softwareSetting'>,
  siteTimeZone: string | undefined,
  now: Date,
): boolean {
  const hours = pages.windowSetting.workHours;
  const zone = hours.timezone || pages.softwareSetting.timezone || siteTimeZone || 'UTC';
  return !hours.enabled || withinWorkHours(hours.days, zone, now);
}

/** The first region rule that names one of the visitor's codes. */
export function regionRuleFor(pages: Pick<AllSettings, 'region'>, codes: readonly string[] = []) {
  return pages.region.rules.find((rule) => rule.codes.some((code) => codes.includes(code)));
}

/** What a visitor's widget is given (init and `2020`): the ONE place its settings come from. */
export function toWidgetSettings(pages: AllSettings, context: WidgetContext): WidgetSettings {
  const { lang } = context;
  const style = pages.windowStyle;
  const window = pages.windowSetting;
  const hours = window.workHours;
  const siteZone = pages.softwareSetting.timezone || context.siteTimeZone || 'UTC';
  const workingNow = isWorkingNow(pages, context.siteTimeZone, context.now ?? new Date());
  const rule = regionRuleFor(pages, context.region);
  const blocked = rule?.action === 'block';
  const regionText = rule?.action === 'block' ? rule.text || REGION_BLOCKED[lang] : rule?.action === 'tip' ? (rule.text ?? '') : '';
  const localizeInvitation = (box: SettingsOf<'invitationBox'>['pc']) => ({
    ...box,
    text: localized(box.text, lang),
    acceptText: localized(box.acceptText, lang),
    laterText: localized(box.laterText, lang),
  });
  const pc = pages.takeIcon.pc;
  const uploads = pages.appSetting.visitorUploads;
  return {
    color: style.color,
    title: localized(style.title, lang),
    welcome: localized(window.welcome, lang),
    launcherText: pc.text,
    position: pc.position,
    icon: pc.style === 'image' ? pc.image : '',
    // The loader writes white on these colours (launcher, invitation button, side bar): they come
    // darkened just enough to read at 4.5:1, as the chat window darkens its own, at no cost to its bytes.
    launcher: {
      pc: { ...pages.takeIcon.pc, color: inkOn(pages.takeIcon.pc.color) },
      mobile: { ...pages.takeIcon.mobile, color: inkOn(pages.takeIcon.mobile.color) },
    },
    floatNavigation: {
      ...pages.floatNavigation,
      color: inkOn(pages.floatNavigation.color),
      items: pages.floatNavigation.items.map((item) => ({ ...item })),
    },
    window: {
      logo: style.logo,
      agentAvatar: style.agentAvatar,
      intro: style.intro,
      ad: { ...style.ad },
      width: style.width,
      height: style.height,
    },
    preChat: { enabled: window.preChat.enabled, fields: [...window.preChat.fields], required: [...window.preChat.required] },
    letter: { fields: [...window.letter.fields], required: [...window.letter.required] },
    invitation: {
      enabled: pages.invitationBox.pc.enabled,
      delaySeconds: pages.invitationBox.pc.delaySeconds,
      text: localized(pages.invitationBox.pc.text, lang),
    },
    invitationBox: { pc: localizeInvitation(pages.invitationBox.pc), mobile: localizeInvitation(pages.invitationBox.mobile) },
    online: context.online && workingNow && !blocked,
    workHours: { enabled: hours.enabled, open: workingNow, offlineText: workingNow ? '' : localized(hours.offlineText, lang) },
    rating: window.rating,
    autoCloseMinutes: window.autoCloseMinutes,
    maxLength: window.maxLength,
    upload: {
      enabled: uploads,
      maxBytes: pages.softwareSetting.uploadMaxMB * 1024 * 1024,
      types: uploads ? [...UPLOAD_IMAGE_TYPES, ...UPLOAD_FILE_TYPES] : [],
    },
    region: { blocked, text: regionText },
    transcript: pages.appSetting.transcriptEmail,
    timeZone: siteZone,
  };
}

/** What any visitor or the login page may know about the site. */
export interface SiteInfo {
  siteName: string;
  logo: string;
}

type SettingsRows = {
  [P in SettingsPage as `GET /api/settings/${P}`]: { response: SettingsAnswer<P> };
} & {
  [P in SettingsPage as `POST /api/settings/${P}`]: { body: SettingsSchemas[P]; response: SettingsAnswer<P> };
};

function settingsRows(): SettingsRows {
  const rows: Record<string, { body?: z.ZodType; response: unknown }> = {};
  for (const page of SETTINGS_PAGES) {
    rows[`GET /api/settings/${page}`] = { response: returns<unknown>() };
    rows[`POST /api/settings/${page}`] = { body: settingsSchemas[page], response: returns<unknown>() };
  }
  // The mapped type names every row the loop built; the loop cannot be typed key by key.
  return rows as SettingsRows;
}

/**
 * CONTRACT §8. GET answers the page with defaults filled in; POST takes the whole page (defaults fill
 * what it leaves out) and answers what was stored. Secret fields (SECRET_FIELDS) are answered as '', with
 * a `has…` flag beside each (SettingsAnswer).
 */
export const settingsEndpoints = endpointGroup({
  ...settingsRows(),
  'GET /api/site': { response: returns<SiteInfo>() },
  /** Fetches an access token with the channel's stored AppID and AppSecret, and says what WeChat answered (§11). */
  'POST /api/wechat/test': { body: weChatTestBody, response: returns<WeChatTestAnswer>() },
  /** Shows (or hides) WeChat's typing indicator to the user while their agent types; at most every 12 s per user. */
  'POST /api/wechat/typing': { body: weChatTypingBody, response: returns<null>() },
  /** How many replies WeChat takes per user message (weChatSetting.windowQuota), for the workbench's window line. */
  'GET /api/wechat/replyQuota': { response: returns<{ quota: number }>() },
});
