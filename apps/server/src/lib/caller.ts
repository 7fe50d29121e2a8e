import { ADMIN_ROLE, can } from '@parley/protocol';
import type { FastifyRequest } from 'fastify';

/**
 * Who calls a route or opens an agent's socket: the caller as the routes see it, what resolves it from
 * the token they came with, and how the audit log names them. The auth module makes callers; the route
 * and socket machinery, and every service that checks or records who acts, only read them.
 */

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
  /** The stored password is shorter than today's rule. */
  passwordChangeRequired: boolean;
  /** REQUIRE_ADMIN_MFA and an Admin without two-factor sign-in: only the set-up is open to them. */
  mfaSetupRequired: boolean;
  /** Set when the caller came with an API token (CONTRACT §12) rather than a sign-in. */
  apiToken?: { id: number; name: string };
}

/** Resolves the caller from a token; both reject (401, or 402 when only expired) rather than answer nobody. */
export interface Authenticator {
  /** A sign-in token only: what sockets and the refresh call take. */
  authenticate(token: string | undefined): Promise<AuthContext>;
  /** The credential of an `/api` call: a sign-in token, or an API token. */
  authenticateCall(token: string | undefined): Promise<AuthContext>;
}

/** A supervisor may read and monitor any conversation. */
export function isSupervisor(auth: AuthContext): boolean {
  return can(auth, { role: [ADMIN_ROLE] }) || auth.permissions.includes('setPermissions:service');
}

/** Who made a change, and from where: every audit entry's first three fields. */
export interface AuditActor {
  /** The acting username, or `system`. */
  actor: string;
  actorId?: number | null;
  ip: string;
}

/** The signed-in caller of a route as an audit actor: their username, id and the request's address. */
export function auditActor(auth: { username: string; agentId: number }, req: FastifyRequest): AuditActor {
  return { actor: auth.username, actorId: auth.agentId, ip: req.ip };
}
