import { ADMIN_ROLE, can, type Permission } from '@parley/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AuthContext, AuthService } from '../modules/auth/service.js';
import { forbidden } from './errors.js';
import { type Lang, pickLang } from './i18n.js';
import type { LimitName, Limits } from './limits.js';
import { bearerToken } from './tokens.js';
import { parse } from './validate.js';

/**
 * Who may call a route: anyone, any signed-in agent, holders of a permission, or the Admin role.
 * Checked before the body is even read, so a refused caller learns nothing about the input rules.
 */
export type Access = 'public' | 'agent' | 'admin' | { permission: Permission };

export interface RouteContext<B, Q> {
  req: FastifyRequest;
  reply: FastifyReply;
  body: B;
  query: Q;
  lang: Lang;
  /** Counts the request against its route's token limit for a token the request carries elsewhere. */
  limitToken(token: string): Promise<void>;
}

interface RouteBase<B, Q> {
  method: 'GET' | 'POST';
  url: string;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  /** Larger or smaller than the app's default body limit. */
  bodyLimit?: number;
  /** The entry of `LIMITS` counting this route's requests, per address and per visitor token. */
  limit?: LimitName;
}

export interface PublicRoute<B, Q> extends RouteBase<B, Q> {
  access: 'public';
  handler(ctx: RouteContext<B, Q>): Promise<unknown> | unknown;
}

export interface AgentRoute<B, Q> extends RouteBase<B, Q> {
  access: Exclude<Access, 'public'>;
  handler(ctx: RouteContext<B, Q> & { auth: AuthContext }): Promise<unknown> | unknown;
}

export function langOf(req: FastifyRequest): Lang {
  return pickLang(req.headers['accept-language']);
}

export function ok<T>(data: T) {
  return { code: 200, msg: 'success', data };
}

export function allowed(auth: AuthContext, access: Exclude<Access, 'public'>): boolean {
  if (access === 'agent') return true;
  if (access === 'admin') return can(auth, [ADMIN_ROLE]);
  return can(auth, { permission: [access.permission], mode: 'oneOf' });
}

/** Declares one `/api` route: access and schemas beside each other, the handler returns `data`. */
export function createRouter(app: FastifyInstance, auth: AuthService, limits: Limits) {
  function define<B = undefined, Q = undefined>(def: PublicRoute<B, Q>): void;
  function define<B = undefined, Q = undefined>(def: AgentRoute<B, Q>): void;
  function define<B, Q>(def: PublicRoute<B, Q> | AgentRoute<B, Q>): void {
    const { limit } = def;
    app.route({
      method: def.method,
      url: def.url,
      bodyLimit: def.bodyLimit,
      // The address is counted before the body is read, the token once the body names it.
      ...(limit ? { onRequest: (req: FastifyRequest, reply: FastifyReply) => limits.address(limit, req, reply) } : {}),
      handler: async (req, reply) => {
        // A token named in the body or query counts at once; one in a multipart field when the handler reads it.
        const named = limit ? await limits.token(limit, req, reply) : undefined;
        const lang = langOf(req);
        let context: AuthContext | undefined;
        if (def.access !== 'public') {
          context = await auth.authenticate(bearerToken(req.headers.authorization));
          if (!allowed(context, def.access)) throw forbidden();
        }
        const body = (def.body ? parse(def.body, req.body) : undefined) as B;
        const query = (def.query ? parse(def.query, req.query) : undefined) as Q;
        const limitToken = async (token: string) => {
          if (limit && named === undefined) await limits.token(limit, req, reply, token);
        };
        const base = { req, reply, body, query, lang, limitToken };
        const data =
          def.access === 'public' ? await def.handler(base) : context ? await def.handler({ ...base, auth: context }) : undefined;
        return ok(data ?? null);
      },
    });
  }
  return define;
}

export type DefineRoute = ReturnType<typeof createRouter>;

export function clientMeta(req: FastifyRequest) {
  return { ip: req.ip, userAgent: String(req.headers['user-agent'] ?? '') };
}
