import type { UserInfo } from '@parley/protocol';
import { call } from '../../lib/api';
import { HttpError } from '../../lib/http';
import { i18n } from '../../lib/i18n';

function tokenOf(data: unknown, messageKey: string): string {
  const token = typeof data === 'object' && data !== null ? (data as { token?: unknown }).token : undefined;
  if (typeof token !== 'string' || !token) throw new HttpError(500, i18n.t(messageKey));
  return token;
}

/** The password step: a token, or, with two-factor sign-in on, the ticket the code step needs. */
export async function login(username: string, password: string): Promise<{ token: string } | { ticket: string }> {
  const data: unknown = await call('POST /api/login', { username, password });
  const ticket = typeof data === 'object' && data !== null && 'mfaRequired' in data ? (data as { ticket?: unknown }).ticket : undefined;
  if (typeof ticket === 'string' && ticket) return { ticket };
  return { token: tokenOf(data, 'errors.loginNoToken') };
}

/** The code step of a sign-in with two-factor sign-in on: a TOTP code or a recovery code. */
export async function loginWithCode(ticket: string, code: string): Promise<string> {
  return tokenOf(await call('POST /api/login/mfa', { ticket, code }), 'errors.loginNoToken');
}

export async function socialLogin(code: string): Promise<string> {
  return tokenOf(await call('POST /api/socialLogin', { code }), 'errors.socialNoToken');
}

export function sendCode(phone: string): Promise<unknown> {
  return call('GET /api/sendCode', { phone });
}

export function register(body: { username: string; password: string; nickname?: string }): Promise<{ id: number }> {
  return call('POST /api/register', body);
}

export function logout(): Promise<unknown> {
  return call('GET /api/login/logOut', undefined, { silent: true });
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** User info must have string name and avatar and array roles and permissions (seed §5). */
export async function fetchUserInfo(): Promise<UserInfo> {
  // The answer is checked, not trusted: a broken server must not break the shell (seed §5).
  const data: unknown = await call('GET /api/userInfo');
  const info = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  if (
    typeof info.username !== 'string' ||
    typeof info.avatar !== 'string' ||
    !isStringArray(info.roles) ||
    !isStringArray(info.permissions)
  ) {
    throw new HttpError(500, i18n.t('errors.userInfoFormat'));
  }
  // A server that does not name its zone is taken to share the browser's.
  const timezone = typeof info.timezone === 'string' && info.timezone ? info.timezone : Intl.DateTimeFormat().resolvedOptions().timeZone;
  return {
    username: info.username,
    avatar: info.avatar,
    roles: info.roles,
    permissions: info.permissions,
    timezone,
    passwordChangeRequired: info.passwordChangeRequired === true,
    mfaSetupRequired: info.mfaSetupRequired === true,
  };
}
