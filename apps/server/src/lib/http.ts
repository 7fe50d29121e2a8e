import {
  ADMIN_ROLE,
  type BodyOf,
  can,
  type Endpoint,
  type EndpointSpec,
  endpointMethod,
  endpointPath,
  endpoints,
  type Permission,
  type QueryOf,
  type ResponseOf,
} from '@parley/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext, Authenticator } from './caller.js';
import { ApiError, forbidden } from './errors.js';
import { type Lang, pickLang, translate } from './i18n.js';
import type { LimitName, Limits } from './limits.js';
import { bearerToken } from './tokens.js';
import { parse, ValidationError } from './validate.js';

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

interface RouteBase {
  /** Larger or smaller than the app's default body limit. */
  bodyLimit?: number;
  /** The entry of `LIMITS` counting this route's requests, per address and per visitor token. */
  limit?: LimitName;
  /** Runs when the query or body fails its schema, before the 400 answers. */
  onInvalidInput?(req: FastifyRequest): Promise<void>;
  /**
   * Open to an Admin who must set up two-factor sign-in first (REQUIRE_ADMIN_MFA); every other route
   * answers them 403 until it is set up.
   */
  duringMfaSetup?: boolean;
  /**
   * Only for a person signed in, never an API token: one's own account (password, two-factor, sessions,
   * sign-out) and the tokens themselves, so a leaked token cannot entrench itself.
   */
  sessionOnly?: boolean;
}

/**
 * A handler answers its row's response type (rows typed `void` answer `data: null`), or the reply itself
 * once it has answered through it in another format (a row's `format=csv`, say).
 */
type Answer<K extends Endpoint> = ResponseOf<K> | FastifyReply | Promise<ResponseOf<K> | FastifyReply>;

export interface PublicRoute<K extends Endpoint> extends RouteBase {
  access: 'public';
  handler(ctx: RouteContext<BodyOf<K>, QueryOf<K>>): Answer<K>;
}

export interface AgentRoute<K extends Endpoint> extends RouteBase {
  access: Exclude<Access, 'public'>;
  handler(ctx: RouteContext<BodyOf<K>, QueryOf<K>> & { auth: AuthContext }): Answer<K>;
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

/** What the app serves under `/api`, for tests and tooling to read (`app.apiRoutes`). */
export interface ApiRoutes {
  /** Each route declared by its endpoint-table row, with who may call it. */
  readonly declared: ReadonlyMap<Endpoint, Access>;
  /** The declared routes an API token may not call (`sessionOnly`). */
  readonly sessionOnly: ReadonlySet<Endpoint>;
  /** Every `METHOD /api/…` route Fastify mounted, however it was declared (HEAD twins left out). */
  readonly mounted: ReadonlySet<string>;
}

declare module 'fastify' {
  interface FastifyInstance {
    apiRoutes: ApiRoutes;
  }
}

/**
 * Starts recording the app's `/api` routes into `app.apiRoutes`; must run before any route is added.
 * Answers the map `createRouter` fills with each declared route's access.
 */
export function recordApiRoutes(app: FastifyInstance): Map<Endpoint, Access> {
  const declared = new Map<Endpoint, Access>();
  const mounted = new Set<string>();
  app.addHook('onRoute', (options) => {
    if (!options.url.startsWith('/api/')) return;
    for (const method of [options.method].flat()) if (method !== 'HEAD') mounted.add(`${method} ${options.url}`);
  });
  app.decorate('apiRoutes', { declared, mounted, sessionOnly: new Set<Endpoint>() } satisfies ApiRoutes);
  return declared;
}

/**
 * Declares one `/api` route by its row in the protocol's endpoint table: method, path and schemas come
 * from the row, the handler's answer must be the row's response type. Access sits beside it, and is
 * recorded in `declared`.
 */
export function createRouter(
  app: FastifyInstance,
  auth: Authenticator,
  limits: Limits,
  declared: Map<Endpoint, Access>,
  /** Records a successful write made with an API token. */
  onTokenWrite?: (caller: AuthContext, route: Endpoint, req: FastifyRequest) => Promise<void>,
) {
  /** Who is calling, once the route's onRequest hook has let them through. */
  const callers = new WeakMap<FastifyRequest, AuthContext>();
  function define<K extends Endpoint>(key: K, def: PublicRoute<K>): void;
  function define<K extends Endpoint>(key: K, def: AgentRoute<K>): void;
  function define<K extends Endpoint>(key: K, def: PublicRoute<K> | AgentRoute<K>): void {
    const { limit, access } = def;
    const spec: EndpointSpec = endpoints[key];
    const method = endpointMethod(key);
    const url = endpointPath(key);
    declared.set(key, access);
    if (def.sessionOnly) (app.apiRoutes.sessionOnly as Set<Endpoint>).add(key);
    // The address is counted, and the caller authenticated, before the body is read or its type judged:
    // a stranger hears 401 (a refused agent 403) whatever it sends, never 400, 413 or 415 about the body.
    const onRequest: ((req: FastifyRequest, reply: FastifyReply) => Promise<void>)[] = [];
    if (limit) onRequest.push((req, reply) => limits.address(limit, req, reply));
    if (access !== 'public')
      onRequest.push(async (req, reply) => {
        const token = bearerToken(req.headers.authorization);
        const context = await auth.authenticateCall(token);
        if (context.apiToken && token) {
          await limits.apiToken(req, reply, token);
          if (def.sessionOnly) throw new ApiError(403, 'apiTokenNotHere');
        }
        if (!allowed(context, access)) throw forbidden();
        if (context.mfaSetupRequired && !def.duringMfaSetup) throw new ApiError(403, 'mfaSetupRequired');
        callers.set(req, context);
      });
    app.route({
      method,
      url,
      bodyLimit: def.bodyLimit,
      // Fastify would answer HEAD by running the GET handler, and some GETs change things (refreshToken,
      // logOut, reading marks messages read): a HEAD is refused instead, below.
      exposeHeadRoute: false,
      onRequest,
      handler: async (req, reply) => {
        // A token named in the body or query counts at once; one in a multipart field when the handler reads it.
        const named = limit ? await limits.token(limit, req, reply) : undefined;
        const lang = langOf(req);
        const context = callers.get(req);
        let body: BodyOf<K>;
        let query: QueryOf<K>;
        try {
          body = (spec.body ? parse(spec.body, req.body) : undefined) as BodyOf<K>;
          query = (spec.query ? parse(spec.query, req.query) : undefined) as QueryOf<K>;
        } catch (error) {
          if (error instanceof ValidationError) await def.onInvalidInput?.(req);
          throw error;
        }
        const limitToken = async (token: string) => {
          if (limit && named === undefined) await limits.token(limit, req, reply, token);
        };
        const base = { req, reply, body, query, lang, limitToken };
        // A caller the onRequest hook let through always has a context; none here would be a bug, refused.
        if (def.access !== 'public' && !context) throw forbidden();
        const data =
          def.access === 'public' ? await def.handler(base) : context ? await def.handler({ ...base, auth: context }) : undefined;
        // Every write made with an API token is in the audit log (CONTRACT §12), once it succeeded.
        if (context?.apiToken && method === 'POST') await onTokenWrite?.(context, key, req);
        // A raw endpoint, or a handler that answered another format, has answered through `reply` itself.
        // `data === reply` cannot tell: a reply is thenable, so awaiting the handler's answer unwraps it
        // into `undefined`, and an envelope would then go out second.
        if (spec.raw || reply.sent) return reply;
        return ok(data ?? null);
      },
    });
    if (method === 'GET')
      app.route({
        method: 'HEAD',
        url,
        handler: (req, reply) =>
          reply
            .status(405)
            .header('allow', 'GET')
            .send({ code: 405, msg: translate(langOf(req), 'methodNotAllowed'), data: null }),
      });
  }
  return define;
}

export type DefineRoute = ReturnType<typeof createRouter>;

export function clientMeta(req: FastifyRequest) {
  return { ip: req.ip, userAgent: String(req.headers['user-agent'] ?? '') };
}
