import type { BodyOf, Endpoint, QueryOf, ResponseOf } from '@parley/protocol';
import type { FastifyRequest } from 'fastify';
import { type AuditActor, type AuthContext, auditActor } from './caller.js';
import type { Access, DefineRoute } from './http.js';

/** An area of CONTRACT §2's list shape: `/api/<area>/getList`, `/doEdit` and `/doDelete` are rows of the table. */
export type CrudArea = {
  [K in Endpoint]: K extends `GET /api/${infer A}/getList`
    ? `POST /api/${A}/doEdit` extends Endpoint
      ? `POST /api/${A}/doDelete` extends Endpoint
        ? A
        : never
      : never
    : never;
}[Endpoint];

type ListKey<A extends CrudArea> = Extract<Endpoint, `GET /api/${A}/getList`>;
type EditKey<A extends CrudArea> = Extract<Endpoint, `POST /api/${A}/doEdit`>;
type DeleteKey<A extends CrudArea> = Extract<Endpoint, `POST /api/${A}/doDelete`>;
type Answer<K extends Endpoint> = ResponseOf<K> | Promise<ResponseOf<K>>;

/**
 * What an area's service offers for its three routes; `auth` is the caller, for rules about who may do what,
 * and `actor` the same caller as the audit log records them (with the request's address).
 */
export interface CrudService<A extends CrudArea> {
  list(query: QueryOf<ListKey<A>>, auth: AuthContext): Answer<ListKey<A>>;
  save(body: BodyOf<EditKey<A>>, auth: AuthContext, actor: AuditActor): Answer<EditKey<A>>;
  remove(ids: BodyOf<DeleteKey<A>> extends { ids: infer I } ? I : never, auth: AuthContext, actor: AuditActor): Answer<DeleteKey<A>>;
}

/**
 * Declares an area's list, edit and delete routes at once, all behind the same access. The routes are
 * the table's rows, so their input is validated and their answers typed like any other route.
 */
export function crudRoutes<A extends CrudArea>(
  route: DefineRoute,
  area: A,
  access: Exclude<Access, 'public'>,
  service: CrudService<A>,
): void {
  // The three keys are rows of the table for every CrudArea; the compiler cannot follow a key built from
  // a type parameter, so each handler is checked against CrudService<A> above instead.
  const declare = route as (key: Endpoint, def: { access: typeof access; handler(ctx: Context): unknown }) => void;
  declare(`GET /api/${area}/getList` as Endpoint, { access, handler: ({ query, auth }) => service.list(query as never, auth) });
  declare(`POST /api/${area}/doEdit` as Endpoint, {
    access,
    handler: ({ body, auth, req }) => service.save(body as never, auth, auditActor(auth, req)),
  });
  declare(`POST /api/${area}/doDelete` as Endpoint, {
    access,
    handler: ({ body, auth, req }) => service.remove((body as { ids: never }).ids, auth, auditActor(auth, req)),
  });
}

interface Context {
  query: unknown;
  body: unknown;
  auth: AuthContext;
  req: FastifyRequest;
}
