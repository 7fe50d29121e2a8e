import {
  ADMIN_ROLE,
  API_TOKEN_GRANTS,
  API_TOKEN_PREFIX,
  type ApiToken,
  type ApiTokenGrant,
  grantable,
  PERMISSIONS,
} from '@parley/protocol';
import type { Db } from '../../db/index.js';
import type { AuditActor, AuthContext } from '../../lib/caller.js';
import { ApiError, unauthorized } from '../../lib/errors.js';
import { hashToken, newToken } from '../../lib/tokens.js';
import type { AuditLog } from '../audit/audit-log.js';
import { permissionsOf } from '../auth/service.js';
import type { ApiTokenRepository } from './repository.js';

/** How many live tokens one agent may hold: enough for every system a site connects, not a flood. */
export const MAX_TOKENS_PER_AGENT = 50;
/** `last_used_at` is written at most this often per token, not on every call. */
const TOUCH_EVERY_MS = 60_000;

function grantsOf(stored: string): ApiTokenGrant[] {
  try {
    const parsed: unknown = JSON.parse(stored);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((grant): grant is ApiTokenGrant => (API_TOKEN_GRANTS as readonly string[]).includes(grant));
  } catch {
    return [];
  }
}

export interface NewToken {
  name: string;
  permissions: ApiTokenGrant[];
  expiresAt?: string | null;
}

/**
 * API tokens (CONTRACT §12): a credential a person makes for a script or another system. It acts as its
 * creator, with only the grants it was given, cut at each call to what the creator holds then: a creator
 * who loses a permission, or is disabled, takes it from the token at once.
 */
export class ApiTokenService {
  constructor(
    private readonly db: Db,
    private readonly repo: ApiTokenRepository,
    private readonly audit: AuditLog,
    private readonly now: () => number = Date.now,
  ) {}

  static isApiToken(token: string): boolean {
    return token.startsWith(API_TOKEN_PREFIX);
  }

  async list(): Promise<{ list: ApiToken[]; total: number }> {
    const rows = await this.repo.listLive();
    const list = rows.map((row) => ({
      id: row.id,
      name: row.name,
      permissions: grantsOf(row.permissions),
      createdBy: row.username,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
      expiresAt: row.expires_at,
    }));
    return { list, total: list.length };
  }

  /** Makes a token; its secret is answered this once and only its hash is kept. */
  async create(auth: AuthContext, body: NewToken, actor: AuditActor): Promise<{ id: number; token: string }> {
    if (auth.apiToken) throw new ApiError(403, 'apiTokenNotHere');
    const wanted = {
      roles: body.permissions.includes(ADMIN_ROLE) ? [ADMIN_ROLE] : [],
      permissions: body.permissions.filter((grant) => grant !== ADMIN_ROLE),
    };
    // A person gives only what they hold; only an Admin gives Admin.
    if (!grantable(auth, wanted)) throw new ApiError(403, 'grantNotHeld');
    const nowMs = this.now();
    if (body.expiresAt && Date.parse(body.expiresAt) <= nowMs) throw new ApiError(400, 'invalidField', { field: 'expiresAt' });
    const token = `${API_TOKEN_PREFIX}${newToken()}`;
    const id = await this.db.transaction().execute(async (tx) => {
      if ((await this.repo.countLiveOf(tx, auth.agentId)) >= MAX_TOKENS_PER_AGENT)
        throw new ApiError(409, 'tooManyTokens', { max: MAX_TOKENS_PER_AGENT });
      const inserted = await this.repo.insert(tx, {
        agent_id: auth.agentId,
        name: body.name,
        token_hash: hashToken(token),
        permissions: JSON.stringify(body.permissions),
        created_at: new Date(nowMs).toISOString(),
        expires_at: body.expiresAt ? new Date(body.expiresAt).toISOString() : null,
      });
      await this.audit.record(tx, {
        ...actor,
        action: 'token.create',
        target: `token:${inserted}`,
        detail: { name: body.name, permissions: body.permissions, expiresAt: body.expiresAt ?? null },
      });
      return inserted;
    });
    return { id, token };
  }

  /** Revokes tokens at once: the next call with one answers 401. */
  async revoke(ids: number[], actor: AuditActor): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const revoked = await this.repo.revoke(tx, [...new Set(ids)], new Date(this.now()).toISOString());
      for (const row of revoked)
        await this.audit.record(tx, { ...actor, action: 'token.revoke', target: `token:${row.id}`, detail: { name: row.name } });
    });
  }

  /** Resolves a token to the caller it acts as: 401 when unknown, revoked, expired, or its creator disabled. */
  async authenticate(token: string): Promise<AuthContext> {
    const row = await this.repo.findLive(hashToken(token));
    const nowMs = this.now();
    if (!row || row.disabled) throw unauthorized('tokenInvalid');
    if (row.expires_at && Date.parse(row.expires_at) <= nowMs) throw unauthorized('apiTokenExpired');
    if (!row.last_used_at || Date.parse(row.last_used_at) + TOUCH_EVERY_MS <= nowMs)
      await this.repo.touch(row.id, new Date(nowMs).toISOString());
    const grants = grantsOf(row.grants);
    const creatorIsAdmin = row.roleName === ADMIN_ROLE;
    const admin = creatorIsAdmin && grants.includes(ADMIN_ROLE);
    const held = permissionsOf(row.roleName, row.permissions);
    return {
      // No sign-in session: routes of one's own account refuse API tokens (`sessionOnly`).
      sessionId: 0,
      agentId: row.agentId,
      uuid: row.uuid,
      username: row.username,
      nickname: row.nickname,
      avatar: row.avatar,
      roles: admin ? [ADMIN_ROLE] : [],
      permissions: admin ? [...PERMISSIONS] : grants.filter((grant) => grant !== ADMIN_ROLE && held.includes(grant)),
      passwordChangeRequired: false,
      mfaSetupRequired: false,
      apiToken: { id: row.id, name: row.name },
    };
  }

  /** Records a write made with a token, in the audit log: which call, under which token. */
  async recordUse(auth: AuthContext, route: string, ip: string): Promise<void> {
    if (!auth.apiToken) return;
    const token = auth.apiToken;
    await this.audit.record(this.db, {
      actor: auth.username,
      actorId: auth.agentId,
      ip,
      action: 'token.use',
      target: `token:${token.id}`,
      detail: { name: token.name, route },
    });
  }
}
