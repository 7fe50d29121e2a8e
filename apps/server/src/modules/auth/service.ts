import { ADMIN_ROLE, PERMISSIONS, type UserInfo } from '@parley/protocol';
import type { Config } from '../../config.js';
import { ApiError, unauthorized } from '../../lib/errors.js';
import { verifyAgainstNothing, verifyPassword } from '../../lib/password.js';
import { isoAfter, isoBefore } from '../../lib/time.js';
import { hashToken, newToken } from '../../lib/tokens.js';
import type { Bus } from '../../realtime/bus.js';
import type { AuthRepository } from './repository.js';

/** Who is calling, resolved from a live token. */
export interface AuthContext {
  sessionId: number;
  agentId: number;
  uuid: string;
  username: string;
  nickname: string;
  avatar: string;
  roles: string[];
  permissions: string[];
}

export interface ClientMeta {
  ip: string;
  userAgent: string;
}

/** Every permission for the Admin role, whatever is stored; the stored list for any other. */
export function permissionsOf(roleName: string, stored: string): string[] {
  if (roleName === ADMIN_ROLE) return [...PERMISSIONS];
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

export class AuthService {
  constructor(
    private readonly repo: AuthRepository,
    private readonly config: Config,
    private readonly bus: Bus,
    /** The site's time zone now: the settings may change it. */
    private readonly siteTimeZone: () => string = () => config.siteTimeZone,
    /** The clock of token lifetimes and of the failed-login window: tests move it instead of waiting. */
    private readonly now: () => number = Date.now,
  ) {}

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }

  async login(username: string, password: string, client: ClientMeta): Promise<{ token: string }> {
    const now = this.now();
    const record = (result: 'success' | 'failure', reason: string, agentId: number | null, counted: boolean) =>
      this.repo.insertLoginRecord({
        username: username.slice(0, 64),
        agent_id: agentId,
        ip: client.ip,
        user_agent: client.userAgent.slice(0, 512),
        result,
        reason,
        counted: counted ? 1 : 0,
        created_at: new Date(now).toISOString(),
      });

    const slots = await this.reserveAttempt(username, client.ip, now);
    if ('blockedUntil' in slots) {
      await record('failure', 'rate_limited', null, false);
      const minutes = Math.max(1, Math.ceil((slots.blockedUntil - now) / 60_000));
      throw new ApiError(429, 'rateLimited', { minutes });
    }
    // A failure keeps its slots until the window passes; anything else gives them back.
    let failed = false;
    try {
      const agent = await this.repo.findAgentByUsername(username);
      if (!agent) {
        await verifyAgainstNothing(password);
        failed = true;
        await record('failure', 'unknown_user', null, true);
        throw unauthorized('badCredentials');
      }
      if (!(await verifyPassword(agent.password_hash, password))) {
        failed = true;
        await record('failure', 'bad_password', agent.id, true);
        throw unauthorized('badCredentials');
      }
      if (agent.disabled) {
        failed = true;
        await record('failure', 'disabled', agent.id, true);
        throw unauthorized('accountDisabled');
      }
      const { token } = await this.openSession(agent.id, now, isoAfter(this.config.refreshTtlSeconds, now));
      await record('success', 'ok', agent.id, false);
      return { token };
    } finally {
      if (!failed) await slots.release();
    }
  }

  /**
   * Takes a slot for the account from this address and one for the address, before any password is
   * checked: however many attempts arrive at once, no more than the limits are evaluated.
   */
  private async reserveAttempt(username: string, ip: string, now: number) {
    const { perAccount, perAddress, windowSeconds } = this.config.loginLimits;
    const since = isoBefore(windowSeconds, now);
    const at = new Date(now).toISOString();
    const accountKey = `account:${ip.slice(0, 64)}:${username.slice(0, 64)}`;
    const addressKey = `address:${ip.slice(0, 64)}`;
    const blocked = async (key: string) => {
      const start = await this.repo.findAttemptWindow(key);
      return { blockedUntil: Date.parse(start ?? at) + windowSeconds * 1000 };
    };
    const accountWindow = await this.repo.reserveAttempt(accountKey, perAccount, at, since);
    if (accountWindow === undefined) return blocked(accountKey);
    const addressWindow = await this.repo.reserveAttempt(addressKey, perAddress, at, since);
    if (addressWindow === undefined) {
      await this.repo.releaseAttempt(accountKey, accountWindow);
      return blocked(addressKey);
    }
    return {
      release: async () => {
        await this.repo.releaseAttempt(accountKey, accountWindow);
        await this.repo.releaseAttempt(addressKey, addressWindow);
      },
    };
  }

  /**
   * A login refused for its input is still an attempt, and every attempt goes to the login log; it was
   * never evaluated, so it does not count towards the failure limit.
   */
  async recordRefusedLogin(username: string, client: ClientMeta): Promise<void> {
    await this.repo.insertLoginRecord({
      username: username.slice(0, 64),
      agent_id: null,
      ip: client.ip,
      user_agent: client.userAgent.slice(0, 512),
      result: 'failure',
      reason: 'invalid_input',
      counted: 0,
      created_at: this.isoNow(),
    });
  }

  private async openSession(agentId: number, now: number, refreshUntil: string) {
    const token = newToken();
    const sessionId = await this.repo.insertSession({
      agent_id: agentId,
      token_hash: hashToken(token),
      expires_at: isoAfter(this.config.tokenTtlSeconds, now),
      refresh_until: refreshUntil,
      created_at: new Date(now).toISOString(),
    });
    return { token, sessionId };
  }

  /** Resolves a token: 401 when unknown, revoked, disabled or past refresh; 402 when only expired. */
  async authenticate(token: string | undefined): Promise<AuthContext> {
    const session = await this.findLiveSession(token);
    if (session.expires_at <= this.isoNow()) throw new ApiError(402, 'tokenExpired');
    return {
      sessionId: session.sessionId,
      agentId: session.agentId,
      uuid: session.uuid,
      username: session.username,
      nickname: session.nickname,
      avatar: session.avatar,
      roles: [session.roleName],
      permissions: permissionsOf(session.roleName, session.permissions),
    };
  }

  private async findLiveSession(token: string | undefined) {
    if (!token) throw unauthorized('notLoggedIn');
    const session = await this.repo.findSession(hashToken(token));
    if (!session || session.revoked || session.disabled) throw unauthorized('tokenInvalid');
    if (session.refresh_until <= this.isoNow()) throw unauthorized('refreshExpired');
    return session;
  }

  /** Trades a token (expired or not) for a new one while the login's refresh window lasts. */
  async refresh(token: string | undefined): Promise<{ token: string }> {
    const session = await this.findLiveSession(token);
    // Only the caller that revokes the old session gets a new one: two racing refreshes cannot fork it.
    if (!(await this.repo.revokeSession(session.sessionId))) throw unauthorized('tokenInvalid');
    const renewed = await this.openSession(session.agentId, this.now(), session.refresh_until);
    // Sockets opened with the old token belong to the new session now: a later logout closes them.
    await this.bus.publish({ type: 'sessions.renewed', agentId: session.agentId, from: session.sessionId, to: renewed.sessionId });
    return { token: renewed.token };
  }

  async logout(auth: AuthContext): Promise<void> {
    await this.repo.revokeSession(auth.sessionId);
    await this.bus.publish({ type: 'sessions.revoked', agentId: auth.agentId, sessionIds: [auth.sessionId] });
  }

  /** Ends every session of an agent at once: disabled, deleted, or a new password. */
  async revokeAgent(agentId: number): Promise<void> {
    await this.repo.revokeAgentSessions(agentId);
    await this.bus.publish({ type: 'sessions.revoked', agentId, sessionIds: 'all' });
  }

  userInfo(auth: AuthContext): UserInfo {
    return {
      username: auth.username,
      avatar: auth.avatar,
      roles: auth.roles,
      permissions: auth.permissions,
      timezone: this.siteTimeZone(),
    };
  }

  async pruneSessions(): Promise<void> {
    await this.repo.deleteDeadSessions(this.isoNow());
    await this.repo.deleteAttemptsBefore(isoBefore(this.config.loginLimits.windowSeconds));
  }
}
