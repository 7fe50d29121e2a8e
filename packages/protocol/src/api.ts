import { z } from 'zod';
import { PERMISSIONS } from './permissions.js';
import { line } from './strings.js';

/** Every `/api` answer. */
export interface Envelope<T = unknown> {
  code: number;
  msg: string;
  data: T;
}

export interface ListData<T> {
  list: T[];
  total: number;
  /**
   * More rows match than `total` says: a keyword found in very many conversations is counted up to a
   * bound (the history list), and the list shows "more than" that.
   */
  more?: boolean;
  /**
   * `total` is the database's estimate, not a count: on PostgreSQL a list of more than a hundred thousand
   * rows (the visitor list, the history) is not counted row by row for each page, and the list shows
   * "about" it.
   */
  estimated?: boolean;
}

export const ErrorCode = {
  badRequest: 400,
  unauthorized: 401,
  tokenExpired: 402,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  tooLarge: 413,
  rateLimited: 429,
  serverError: 500,
} as const;

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
/**
 * New passwords (register, agent create/edit, personal); the login form keeps LOGIN_PASSWORD_MIN_LENGTH.
 * Stricter than CONTRACT §3's 8 (ASVS 2.1.1); a shorter stored password still signs in and is asked to change.
 */
export const MIN_PASSWORD_LENGTH = 12;
export const LOGIN_PASSWORD_MIN_LENGTH = 6;
export const MAX_PASSWORD_LENGTH = 128;

const trimmed = (max: number) => line(z.string().trim().max(max));

/** An avatar is shown as an image: only web addresses and the server's own paths are accepted. */
export const avatarUrl = trimmed(512).refine((value) => value === '' || /^(https?:\/\/|\/(?!\/))/i.test(value));

export const pageQuery = z.object({
  pageNo: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
});

export const deleteBody = z.object({
  ids: z.array(z.coerce.number().int().positive()).min(1).max(MAX_PAGE_SIZE),
});

export const username = line(z.string().trim().min(1).max(64)).regex(/^[\p{L}\p{N}_.@-]+$/u);
export const password = line(z.string().min(MIN_PASSWORD_LENGTH).max(MAX_PASSWORD_LENGTH));

/** `POST /api/login`: either clear credentials or the seed's RSA-encrypted `param`. */
export const loginBody = z.union([
  z.object({ username: line(z.string().trim().min(1).max(64)), password: line(z.string().min(1).max(MAX_PASSWORD_LENGTH)) }),
  z.object({ param: z.string().min(1).max(8192) }),
]);
export const credentials = z.object({
  username: line(z.string().trim().min(1).max(64)),
  password: line(z.string().min(1).max(MAX_PASSWORD_LENGTH)),
});

export const sendCodeQuery = z.object({ phone: line(z.string().trim().min(1).max(32)) });
export const socialLoginBody = z.object({ code: line(z.string().trim().min(1).max(512)) });

export const registerBody = z.object({
  username,
  password,
  nickname: trimmed(64).optional(),
});

export interface UserInfo {
  username: string;
  avatar: string;
  roles: string[];
  permissions: string[];
  /** The site's IANA time zone: every day boundary and displayed time uses it (CONTRACT §7). */
  timezone: string;
  /** The stored password is shorter than today's rule: the console asks for a new one until it is changed. */
  passwordChangeRequired?: boolean;
  /** An Admin without two-factor sign-in where it is required: nothing else answers until it is set up. */
  mfaSetupRequired?: boolean;
}

export type AgentState = '0' | '1';
export type AgentPresence = 'online' | 'hidden' | 'offline';

export interface Agent {
  id: number;
  uuid: string;
  username: string;
  nickname: string;
  avatar: string;
  roleId: number;
  roleName: string;
  /** The availability the agent chose: '0' online, '1' hidden. */
  state: AgentState;
  /** What others see now: a console connected and online, connected but hidden, or not connected at all. */
  presence: AgentPresence;
  maxChats: number;
  disabled: boolean;
  /** Registered by the person themself and waiting for an administrator to enable it. */
  pending: boolean;
  created_at: string;
}

export const serviceListQuery = pageQuery.extend({
  username: trimmed(64).optional(),
  roleId: z.coerce.number().int().positive().optional(),
  disabled: z.enum(['true', 'false']).optional(),
});

export const serviceEditBody = z.object({
  id: z.coerce.number().int().positive().optional(),
  username,
  nickname: line(z.string().trim().min(1).max(64)),
  password: password.optional(),
  roleId: z.coerce.number().int().positive(),
  maxChats: z.coerce.number().int().min(1).max(100).optional(),
  disabled: z.boolean().optional(),
  avatar: avatarUrl.optional(),
});

export interface Role {
  id: number;
  name: string;
  permissions: string[];
  builtin: boolean;
  agents: number;
  created_at: string;
}

export const roleListQuery = pageQuery.extend({
  name: trimmed(64).optional(),
  role: trimmed(64).optional(),
});

export const roleEditBody = z.object({
  id: z.coerce.number().int().positive().optional(),
  name: line(z.string().trim().min(1).max(64)),
  permissions: z.array(z.enum(PERMISSIONS)).max(PERMISSIONS.length),
});

export type LoginResult = 'success' | 'failure';

export interface LoginRecord {
  id: number;
  username: string;
  ip: string;
  userAgent: string;
  result: LoginResult;
  reason: string;
  created_at: string;
}

export const recordListQuery = pageQuery.extend({
  username: trimmed(64).optional(),
  account: trimmed(64).optional(),
  result: z.enum(['success', 'failure']).optional(),
  from: z.iso.datetime({ offset: true }).or(z.iso.date()).optional(),
  to: z.iso.datetime({ offset: true }).or(z.iso.date()).optional(),
});

export const searchQuery = z.object({ keyword: line(z.string().trim().max(64)).default('') });

export interface SearchSuggestion {
  value: string;
  url: string;
}

export interface Notice {
  id: string;
  kind: 'letter' | 'registration' | 'system' | 'security' | 'mention';
  title: string;
  notice: string;
  url: string;
  created_at: string;
}

/**
 * The home page's figures, each a count the caller may see: the live ones (the workbench's visitors,
 * letters waiting to be read) for every agent, the others only with the permission of their page.
 * "Today" is `day`, the site's day (CONTRACT §7).
 */
export interface HomeOverview {
  day: string;
  visitorsOnline: number;
  waiting: number;
  inConversation: number;
  /** Visitors seen today, and conversations begun today. */
  visitorsToday: number;
  conversationsToday: number;
  unreadLetters: number;
  /** With `setPermissions:service`: enabled agents whose console is open and online, and all enabled agents. */
  agentsOnline?: number;
  agentsTotal?: number;
  /** With `seePermissions:seeLoginRecord`: successful and failed sign-ins today. */
  signInsToday?: number;
  signInFailuresToday?: number;
}
