import type { z } from 'zod';

export type Method = 'GET' | 'POST';
/** An endpoint's name is its method and path, e.g. `GET /api/role/getList`. */
export type EndpointKey = `${Method} /api/${string}`;

/**
 * One row of the endpoint table: the schema of the query (GET) or body (POST) and the type of the
 * envelope's `data`. `raw` endpoints answer something other than the JSON envelope (a CSV file, …).
 */
export interface EndpointSpec {
  query?: z.ZodType;
  body?: z.ZodType;
  response: unknown;
  raw?: true;
}

/**
 * The response type of a table row. It exists only for the compiler: the value is never read, so the
 * table costs no bytes for its types.
 */
export function returns<T>(): T {
  return undefined as T;
}

/** Declares a group of rows; `satisfies` keeps each row's own schema and response types. */
export function endpointGroup<const T extends Record<EndpointKey, EndpointSpec>>(rows: T): T {
  return rows;
}

export function methodOf(key: EndpointKey): Method {
  return key.startsWith('GET ') ? 'GET' : 'POST';
}

export function pathOf(key: EndpointKey): string {
  return key.slice(key.indexOf(' ') + 1);
}

type SchemaOf<S, F extends 'query' | 'body'> = S extends { [K in F]: infer Z extends z.ZodType } ? Z : undefined;

/** What the server's handler receives once the input is validated. */
export type Parsed<S, F extends 'query' | 'body'> = SchemaOf<S, F> extends z.ZodType ? z.output<SchemaOf<S, F>> : undefined;
/** What a client sends (before defaults and coercion). */
export type Sent<S, F extends 'query' | 'body'> = SchemaOf<S, F> extends z.ZodType ? z.input<SchemaOf<S, F>> : undefined;
export type ResponseOfSpec<S> = S extends { response: infer R } ? R : never;
