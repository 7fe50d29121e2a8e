import {
  type Endpoint,
  type EndpointSpec,
  endpointMethod,
  endpointPath,
  endpoints,
  PERMISSION_LABELS,
  type Permission,
} from '@parley/protocol';
import responseSchemas from '@parley/protocol/responses.json';
import { z } from 'zod';
import type { Access, ApiRoutes } from '../../lib/http.js';

type JsonSchema = Record<string, unknown>;

/**
 * The schema of each endpoint's `data`, and the named types they share: written from the endpoint table's
 * response types by `scripts/response-schemas.mjs` (`npm run typecheck` fails when it is out of date).
 */
const responses = responseSchemas as { schemas: Record<string, JsonSchema>; responses: Record<string, JsonSchema> };

/** The schema a client sends: before defaults and coercion, and transforms read as their input. */
function inputSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** A GET's query schema as OpenAPI parameters, one per property. */
function queryParameters(schema: z.ZodType): JsonSchema[] {
  const json = inputSchema(schema);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: property,
  }));
}

/** Who may call, in a few words: the line each operation shows beside its path. */
function accessSummary(access: Access): string {
  if (access === 'public') return 'Open (no token)';
  if (access === 'agent') return 'Any agent';
  if (access === 'admin') return 'Admin only';
  return access.permission;
}

function describeAccess(access: Access): string {
  if (access === 'public') return 'Open to anyone (no token).';
  if (access === 'agent') return 'Any signed-in agent or API token.';
  if (access === 'admin') return 'Role `Admin` only.';
  return `Permission \`${access.permission}\` (${PERMISSION_LABELS[access.permission as Permission]?.en ?? access.permission}).`;
}

/** The envelope every JSON answer is: `code` 200 on success, else the error's code, with `msg` worded for a person. */
const envelope = (data: JsonSchema, code: JsonSchema = { type: 'integer', const: 200 }) => ({
  type: 'object',
  required: ['code', 'msg', 'data'],
  properties: { code, msg: { type: 'string' }, data },
});

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/**
 * The OpenAPI 3.1 document of every `/api` route the server mounts (CONTRACT §12), generated from the
 * protocol's endpoint table and the very zod schemas the routes validate with, so it cannot drift.
 */
export function openApiDocument(routes: ApiRoutes, serverUrl: string, version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  const sorted = [...routes.declared].sort(([a], [b]) => endpointPath(a).localeCompare(endpointPath(b)) || a.localeCompare(b));
  for (const [key, access] of sorted) {
    const spec: EndpointSpec = endpoints[key as Endpoint];
    const method = endpointMethod(key).toLowerCase();
    const path = endpointPath(key);
    const operation: Record<string, unknown> = {
      operationId: `${method}${path.replace(/^\/api/, '').replace(/\/(\w)/g, (_, c: string) => c.toUpperCase())}`,
      tags: [path.split('/')[2] ?? 'api'],
      summary: accessSummary(access),
      description: `${describeAccess(access)}${routes.sessionOnly.has(key) ? ' Not with an API token: only for a person signed in.' : ''}`,
      'x-parley-access': typeof access === 'string' ? access : access.permission,
      security: access === 'public' ? [] : [{ bearer: [] }],
      responses: {
        '200': spec.raw
          ? { description: 'A file (CSV) or a page, not the JSON envelope.', content: { 'text/csv': { schema: { type: 'string' } } } }
          : {
              description: 'Success: the envelope, its `data` as the route answers it.',
              content: { 'application/json': { schema: envelope(responses.responses[key] ?? {}) } },
            },
        '400': errorResponse('Invalid input; the message names the field.'),
        ...(access === 'public' ? {} : { '401': errorResponse('No token, or an unknown, revoked or expired one.') }),
        ...(access === 'public' ? {} : { '403': errorResponse('The caller may not make this call.') }),
        '429': errorResponse('Too many requests; see Retry-After.'),
      },
    };
    if (spec.query) operation.parameters = queryParameters(spec.query);
    if (spec.body) operation.requestBody = { required: true, content: { 'application/json': { schema: inputSchema(spec.body) } } };
    paths[path] = { ...paths[path], [method]: operation };
  }
  // Uploaded files are served outside the endpoint table (a file, not the envelope): by their unguessable name.
  for (const mounted of routes.mounted) {
    const [method = '', path = ''] = mounted.split(' ');
    if (!path.startsWith('/api/files/')) continue;
    const names = [...path.matchAll(/:(\w+)/g)].map((match) => match[1] ?? '');
    paths[path.replace(/:(\w+)/g, '{$1}')] = {
      [method.toLowerCase()]: {
        operationId: `getFile${names.length > 1 ? 'Named' : ''}`,
        tags: ['files'],
        summary: mounted,
        description: 'An uploaded file, by the unguessable name its upload answered; the last segment only names the download.',
        security: [],
        parameters: names.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        responses: { '200': { description: 'The file.' }, '404': errorResponse('No such file.') },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Parley API',
      version,
      description:
        'Every `/api` call answers the envelope `{ code, msg, data }`. Send a sign-in token or an API token (`pat_…`) as `Authorization: Bearer <token>`.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A sign-in token, or an API token (`pat_…`).' } },
      schemas: { ...responses.schemas, Error: envelope({ type: 'null' }, { type: 'integer', examples: [400] }) },
    },
    paths,
  };
}
