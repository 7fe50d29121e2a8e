import {
  type AccountSession,
  ADMIN_ROLE,
  API_TOKEN_PREFIX,
  type LoginAnswer,
  MIN_PASSWORD_LENGTH,
  PERMISSIONS,
  type UserInfo,
} from '@parley/protocol';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import type { AuthContext, Authenticator } from '../../lib/caller.js';
import { ApiError, notFound, RetryLaterError, unauthorized } from '../../lib/errors.js';
import { verifyAgainstNothing, verifyPassword } from '../../lib/password.js';
import { isoAfter, isoBefore } from '../../lib/time.js';
import { hashToken, newToken } from '../../lib/tokens.js';
import type { Bus } from '../../realtime/bus.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { Notices } from '../notices/service.js';
import type { MfaCodes } from './mfa-codes.js';
import type { MfaRepository } from './mfa-repository.js';
import type { AuthRepository } from './repository.js';

/** Wrong codes a sign-in ticket takes before it is spent: the password is asked again. */
const MAX_TICKET_FAILURES = 5;
/** How often a session's last use is written: not on every request, the message path's included. */
const TOUCH_EVERY_MS = 60_000;

/** What the sign-in's second factor and the notices of failed sign-ins need. */
export interface AuthSecurity {
  db: Db;
  mfaRepo: MfaRepository;
  codes: MfaCodes;
  notices: Notices;
  audit: AuditLog;
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

export class AuthService implements Authenticator {
  constructor(
    private readonly repo: AuthRepository,
    private readonly config: Config,
    private readonly bus: Bus,
    /** The site's time zone now: the settings may change it. */
    private readonly siteTimeZone: () => string = () => config.siteTimeZone,
    /** The clock of token lifetimes and of the failed-login window: tests move it instead of waiting. */
    private readonly now: () => number,
    private readonly security: AuthSecurity,
  ) {}

  private get mfaRepo() {
    return this.security.mfaRepo;
  }

  private get notices() {
    return this.security.notices;
  }

  private isoNow(): string {
    return new Date(this.now()).toISOString();
  }

  private loginRecorder(username: string, client: ClientMeta, now: number) {
    return (result: 'success' | 'failure', reason: string, agentId: number | null, counted: boolean) =>
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
  }

  /**
   * The password step. With two-factor sign-in on, a right password earns a short-lived ticket for the
   * code step instead of a token. A password shorter than today's rule still signs in, and marks the
   * account so that the console asks for a new one.
   */
  async login(username: string, password: string, client: ClientMeta): Promise<LoginAnswer> {
    const now = this.now();
    const record = this.loginRecorder(username, client, now);
    return this.guessWithinLimits(
      username,
      client.ip,
      now,
      (reason) => record('failure', reason, null, false),
      async (failed) => {
        const agent = await this.repo.findAgentByUsername(username);
        if (!agent) {
          await verifyAgainstNothing(password);
          failed();
          await record('failure', 'unknown_user', null, true);
          throw unauthorized('badCredentials');
        }
        if (!(await verifyPassword(agent.password_hash, password))) {
          failed();
          await record('failure', 'bad_password', agent.id, true);
          throw unauthorized('badCredentials');
        }
        if (agent.disabled) {
          failed();
          await record('failure', 'disabled', agent.id, true);
          throw unauthorized('accountDisabled');
        }
        if (password.length < MIN_PASSWORD_LENGTH && !agent.password_change_required) await this.repo.requirePasswordChange(agent.id);
        if (agent.mfa_enabled) {
          const ticket = newToken();
          await this.mfaRepo.insertTicket({
            ticket_hash: hashToken(ticket),
            agent_id: agent.id,
            ip: client.ip.slice(0, 64),
            user_agent: client.userAgent.slice(0, 512),
            expires_at: isoAfter(this.config.mfaTicketTtlSeconds, now),
          });
          await record('success', 'mfa_required', agent.id, false);
          return { mfaRequired: true as const, ticket };
        }
        const { token } = await this.startSession(agent.id, client, now);
        await record('success', 'ok', agent.id, false);
        return { token };
      },
    );
  }

  /**
   * Runs one guess at an account's secret (a password, a two-factor code) within the failed-login limits:
   * its slots are taken before anything is checked, so however many guesses arrive at once no more than
   * the limits are evaluated. A guess that calls `failed()` keeps its slots until the window passes;
   * anything else gives them back. Beyond the limits: 429 with Retry-After, after `refused` is told why.
   */
  async guessWithinLimits<T>(
    username: string,
    ip: string,
    now: number,
    refused: (reason: 'rate_limited' | 'account_delayed') => Promise<void>,
    guess: (failed: () => void) => Promise<T>,
    limitedKey: 'rateLimited' | 'passwordGuessesLimited' = 'rateLimited',
  ): Promise<T> {
    const slots = await this.reserveAttempt(username, ip, now);
    if ('retryAt' in slots) {
      await refused(slots.reason);
      const seconds = Math.max(1, Math.ceil((slots.retryAt - now) / 1000));
      if (slots.reason === 'account_delayed') throw new RetryLaterError('accountDelayed', { seconds }, seconds);
      throw new RetryLaterError(limitedKey, { minutes: Math.max(1, Math.ceil(seconds / 60)) }, seconds);
    }
    let failed = false;
    try {
      return await guess(() => {
        failed = true;
      });
    } finally {
      if (!failed) await slots.release();
    }
  }

  /**
   * Takes a slot for the account from this address, one for the address, and one for the account from
   * all addresses. Past the last limit the account is not locked: its attempts take turns, each waiting
   * longer than the one before (up to a ceiling), so a right password still gets in after a short wait.
   */
  private async reserveAttempt(
    username: string,
    ip: string,
    now: number,
  ): Promise<{ release(): Promise<void> } | { retryAt: number; reason: 'rate_limited' | 'account_delayed' }> {
    const { perAccount, perAddress, perUser, windowSeconds } = this.config.loginLimits;
    const since = isoBefore(windowSeconds, now);
    const at = new Date(now).toISOString();
    const accountKey = `account:${ip.slice(0, 64)}:${username.slice(0, 64)}`;
    const addressKey = `address:${ip.slice(0, 64)}`;
    const userKey = `user:${username.slice(0, 64)}`;
    const blocked = async (key: string) => {
      const start = await this.repo.findAttemptWindow(key);
      return { retryAt: Date.parse(start ?? at) + windowSeconds * 1000, reason: 'rate_limited' as const };
    };
    const accountWindow = await this.repo.reserveAttempt(accountKey, perAccount, at, since);
    if (accountWindow === undefined) return blocked(accountKey);
    const addressWindow = await this.repo.reserveAttempt(addressKey, perAddress, at, since);
    const releaseAddress = async () => {
      await this.repo.releaseAttempt(accountKey, accountWindow);
      if (addressWindow !== undefined) await this.repo.releaseAttempt(addressKey, addressWindow);
    };
    if (addressWindow === undefined) {
      await releaseAddress();
      return blocked(addressKey);
    }
    const userWindow = await this.repo.reserveAttempt(userKey, perUser, at, since);
    if (userWindow !== undefined) {
      return {
        release: async () => {
          await releaseAddress();
          await this.repo.releaseAttempt(userKey, userWindow);
        },
      };
    }
    const turn = await this.delayedTurn(username, userKey, now, since);
    if (turn.retryAt !== undefined) {
      await releaseAddress();
      return { retryAt: turn.retryAt, reason: 'account_delayed' };
    }
    // A delayed turn, once taken, stays taken: the next one waits whatever this one's outcome.
    return { release: releaseAddress };
  }

  /**
   * The next turn of an account past its limit: taken when its wait is over (and then the next one waits
   * twice as long, up to the ceiling), else the time it may be tried again. The first attempt past the
   * limit starts the wait, and tells the Admins.
   */
  private async delayedTurn(username: string, userKey: string, now: number, since: string): Promise<{ retryAt?: number }> {
    const { perUser, delaySeconds, maxDelaySeconds, windowSeconds } = this.config.loginLimits;
    const at = new Date(now).toISOString();
    // A few tries: a turn taken or a slot given back meanwhile changes the row under us.
    for (let tries = 0; tries < 3; tries += 1) {
      const row = await this.repo.findAttempt(userKey);
      // The window passed meanwhile: the next attempt starts a new one.
      if (!row || row.window_start <= since) return {};
      const waitUntil = row.blocked_until ? Date.parse(row.blocked_until) : undefined;
      if (waitUntil !== undefined && waitUntil > now) return { retryAt: waitUntil };
      const excess = Math.max(0, row.attempts - perUser);
      const until = now + Math.min(maxDelaySeconds, delaySeconds * 2 ** excess) * 1000;
      if (!(await this.repo.takeDelayedTurn(userKey, row, at, new Date(until).toISOString()))) continue;
      if (waitUntil !== undefined) return {};
      const { failures, addresses } = await this.repo.failuresOf(username.slice(0, 64), since);
      await this.notices.toAdmins(this.security.db, 'accountDelayed', {
        username: username.slice(0, 64),
        failures,
        addresses,
        minutes: Math.round(windowSeconds / 60),
      });
      return { retryAt: until };
    }
    const row = await this.repo.findAttempt(userKey);
    return { retryAt: row?.blocked_until ? Math.max(now + 1000, Date.parse(row.blocked_until)) : now + delaySeconds * 1000 };
  }

  /** The second step of a sign-in with two-factor sign-in on: the password step's ticket and a code. */
  async loginWithCode(ticket: string, code: string, client: ClientMeta): Promise<{ token: string }> {
    const now = this.now();
    const ticketHash = hashToken(ticket);
    const found = await this.mfaRepo.findTicket(ticketHash, new Date(now).toISOString(), MAX_TICKET_FAILURES);
    if (!found?.mfa_enabled || !found.mfa_secret) throw unauthorized('mfaTicketInvalid');
    const { username } = found;
    const secret = found.mfa_secret;
    const record = this.loginRecorder(username, client, now);
    return this.guessWithinLimits(
      username,
      client.ip,
      now,
      (reason) => record('failure', reason, found.agent_id, false),
      async (failed) => {
        if (found.disabled) {
          failed();
          await record('failure', 'disabled', found.agent_id, true);
          throw unauthorized('accountDisabled');
        }
        const signedIn = await this.security.db.transaction().execute(async (tx) => {
          if (!(await this.security.codes.verify(tx, { id: found.agent_id, mfa_secret: secret }, code))) return false;
          if (!(await this.mfaRepo.useTicket(tx, ticketHash))) throw unauthorized('mfaTicketInvalid');
          return true;
        });
        if (!signedIn) {
          failed();
          await this.mfaRepo.failTicket(ticketHash);
          await record('failure', 'bad_code', found.agent_id, true);
          throw unauthorized('mfaCodeWrong');
        }
        // The session belongs to the browser that gave the password, which is the one giving the code.
        const { token } = await this.startSession(found.agent_id, client, now);
        await record('success', 'ok', found.agent_id, false);
        return { token };
      },
    );
  }

  private async startSession(agentId: number, client: ClientMeta, now: number) {
    return this.openSession(agentId, now, isoAfter(this.config.refreshTtlSeconds, now), {
      ip: client.ip.slice(0, 64),
      user_agent: client.userAgent.slice(0, 512),
      created_at: new Date(now).toISOString(),
    });
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

  /** A new token; `origin` is the sign-in it continues (its address, browser and start). */
  private async openSession(
    agentId: number,
    now: number,
    refreshUntil: string,
    origin: { ip: string; user_agent: string; created_at: string },
  ) {
    const token = newToken();
    const sessionId = await this.repo.insertSession({
      agent_id: agentId,
      token_hash: hashToken(token),
      expires_at: isoAfter(this.config.tokenTtlSeconds, now),
      refresh_until: refreshUntil,
      ...origin,
      last_used_at: new Date(now).toISOString(),
    });
    return { token, sessionId };
  }

  /** Resolves API tokens for `authenticateCall`; set once the token service exists. */
  apiTokens?: { authenticate(token: string): Promise<AuthContext> };

  /**
   * Resolves the credential of an `/api` call: a sign-in token, or an API token (`pat_…`) when the token
   * service is set. Sockets and the refresh call take sign-in tokens only (`authenticate`).
   */
  authenticateCall(token: string | undefined): Promise<AuthContext> {
    if (token?.startsWith(API_TOKEN_PREFIX) && this.apiTokens) return this.apiTokens.authenticate(token);
    return this.authenticate(token);
  }

  /** Resolves a token: 401 when unknown, revoked, disabled or past refresh; 402 when only expired. */
  async authenticate(token: string | undefined): Promise<AuthContext> {
    const session = await this.findLiveSession(token);
    const now = this.now();
    const at = new Date(now).toISOString();
    if (session.expires_at <= at) throw new ApiError(402, 'tokenExpired');
    if (!session.last_used_at || Date.parse(session.last_used_at) + TOUCH_EVERY_MS <= now) {
      await this.repo.touchSession(session.sessionId, at);
    }
    return {
      sessionId: session.sessionId,
      agentId: session.agentId,
      uuid: session.uuid,
      username: session.username,
      nickname: session.nickname,
      avatar: session.avatar,
      roles: [session.roleName],
      permissions: permissionsOf(session.roleName, session.permissions),
      passwordChangeRequired: session.password_change_required === 1,
      mfaSetupRequired: this.config.requireAdminMfa && session.roleName === ADMIN_ROLE && session.mfa_enabled !== 1,
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
    const renewed = await this.openSession(session.agentId, this.now(), session.refresh_until, {
      ip: session.ip,
      user_agent: session.user_agent,
      created_at: session.created_at,
    });
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
      passwordChangeRequired: auth.passwordChangeRequired,
      mfaSetupRequired: auth.mfaSetupRequired,
    };
  }

  /** One's own live sessions, newest first, the caller's marked. */
  async sessions(auth: AuthContext): Promise<AccountSession[]> {
    const rows = await this.repo.listLiveSessions(auth.agentId, this.isoNow());
    return rows.map((row) => ({
      id: row.id,
      current: row.id === auth.sessionId,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
      ip: row.ip,
      userAgent: row.user_agent,
    }));
  }

  /**
   * Ends some of one's own sessions at once, their sockets included. All or nothing: an id that is not a
   * live session of the caller answers 404 and ends none.
   */
  async revokeSessions(auth: AuthContext, ids: number[], client: ClientMeta): Promise<void> {
    const unique = [...new Set(ids)];
    const now = this.isoNow();
    const revoked = await this.security.db.transaction().execute(async (tx) => {
      if ((await this.repo.countOwnSessions(tx, auth.agentId, unique, now)) !== unique.length) throw notFound('sessionMissing');
      const ended = await this.repo.revokeOwnSessions(tx, auth.agentId, unique, now);
      await this.security.audit.record(tx, {
        actor: auth.username,
        actorId: auth.agentId,
        ip: client.ip,
        action: 'session.revoke',
        target: `agent:${auth.username}`,
        detail: { sessions: ended },
      });
      return ended;
    });
    if (revoked.length > 0) await this.bus.publish({ type: 'sessions.revoked', agentId: auth.agentId, sessionIds: revoked });
  }

  async pruneSessions(): Promise<void> {
    await this.repo.deleteDeadSessions(this.isoNow());
    await this.repo.deleteAttemptsBefore(isoBefore(this.config.loginLimits.windowSeconds));
    await this.mfaRepo.deleteTicketsBefore(this.isoNow());
    await this.notices.prune();
  }
}
