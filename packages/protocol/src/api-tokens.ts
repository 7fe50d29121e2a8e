import { z } from 'zod';
import { deleteBody } from './api.js';
import { endpointGroup, returns } from './endpoint.js';
import { ADMIN_ROLE, PERMISSIONS } from './permissions.js';
import { line } from './strings.js';

/**
 * What an API token may be given (CONTRACT §12): any permission, and the Admin role, which only an
 * Admin may give. A token never acts with more than its creator holds at the time of each call.
 */
export const API_TOKEN_GRANTS = [...PERMISSIONS, ADMIN_ROLE] as const;
export type ApiTokenGrant = (typeof API_TOKEN_GRANTS)[number];

/** Every API token starts so: the server tells it from a sign-in token without a lookup, and a leaked one is easy to find. */
export const API_TOKEN_PREFIX = 'pat_';

export interface ApiToken {
  id: number;
  name: string;
  permissions: ApiTokenGrant[];
  /** The creator's username. */
  createdBy: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

export const apiTokenEditBody = z.object({
  name: line(z.string().trim().min(1).max(64)),
  permissions: z
    .array(z.enum(API_TOKEN_GRANTS))
    .min(1)
    .max(API_TOKEN_GRANTS.length)
    .transform((grants) => [...new Set(grants)]),
  /** ISO 8601 instant; absent or null: the token does not expire. */
  expiresAt: z.iso.datetime({ offset: true }).nullish(),
});

/**
 * Which calls a token may make: those open to every agent, and for each grant those it opens. Read from
 * the routes the server mounts, so it cannot drift from them.
 */
export interface ApiTokenCalls {
  everyAgent: string[];
  byGrant: { grant: ApiTokenGrant; calls: string[] }[];
}

/** API tokens (CONTRACT §12); `doEdit` creates one and answers its secret this once. */
export const apiTokenEndpoints = endpointGroup({
  'GET /api/apiToken/getList': { response: returns<{ list: ApiToken[]; total: number }>() },
  'POST /api/apiToken/doEdit': { body: apiTokenEditBody, response: returns<{ id: number; token: string }>() },
  'POST /api/apiToken/doDelete': { body: deleteBody, response: returns<void>() },
  'GET /api/apiToken/calls': { response: returns<ApiTokenCalls>() },
});

/** The API's own description (CONTRACT §12): OpenAPI 3.1 JSON, generated from this table; open to anyone. */
export const openApiEndpoints = endpointGroup({
  'GET /api/openapi.json': { response: returns<Record<string, unknown>>(), raw: true },
  /** The document rendered for people (an HTML page). */
  'GET /api/docs': { response: returns<string>(), raw: true },
});
