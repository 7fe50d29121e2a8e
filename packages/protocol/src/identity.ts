import { z } from 'zod';
import { endpointGroup, returns } from './endpoint.js';
import { yqToken } from './ids.js';
import { line } from './strings.js';

/** CONTRACT §13: a visitor carries at most this many attributes. */
export const MAX_ATTRIBUTES = 50;
/** The longest attribute value that is text, and the longest attribute name. */
export const MAX_ATTRIBUTE_TEXT = 500;
export const MAX_ATTRIBUTE_KEY = 64;

export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue>;

/** An attribute's name: letters, digits and `_ . : -`, so it reads the same in a column, a filter and a CSV header. */
export const attributeKey = z.string().regex(new RegExp(`^[A-Za-z0-9_.:-]{1,${MAX_ATTRIBUTE_KEY}}$`));

const attributeValue = z.union([line(z.string().max(MAX_ATTRIBUTE_TEXT)), z.number().finite(), z.boolean()]);

/** String, number or boolean values under at most MAX_ATTRIBUTES names (400 names the attribute at fault). */
export const visitorAttributes = z
  .record(attributeKey, attributeValue)
  .refine((value) => Object.keys(value).length <= MAX_ATTRIBUTES, { message: `at most ${MAX_ATTRIBUTES} attributes` });

/** The fields a site may tell of its visitor: the same limits as the pre-chat form's. */
const contactFields = {
  name: line(z.string().trim().max(64)).optional(),
  email: z.union([z.literal(''), z.email().max(254)]).optional(),
  phone: line(z.string().trim().max(32))
    .regex(/^[\d\s+()-]*$/)
    .optional(),
};

/** The site's own user id: what `HMAC-SHA256(identitySecret, id)` is computed over. */
export const siteUserId = line(z.string().min(1).max(255));

export const identifyBody = z.object({
  YQToken: yqToken,
  id: siteUserId,
  /** Hex HMAC-SHA256(identitySecret, id); anything else answers 401 like a wrong one. */
  hash: z.string().max(128),
  ...contactFields,
  attributes: visitorAttributes.optional(),
});

export const attributesBody = z.object({
  YQToken: yqToken,
  ...contactFields,
  attributes: visitorAttributes.optional(),
});

/**
 * What identify (and setAttributes) answer the widget. `YQToken` is the credential to keep from now on:
 * an identified user is one visitor on every browser, so a browser joining a user gets that visitor's.
 */
export interface IdentifiedVisitor {
  YQToken: string;
  id: string;
  /** The site's user id; null for an anonymous visitor. */
  userId: string | null;
  name: string;
  email: string;
  phone: string;
  attributes: Attributes;
}

/** The identity secret as its Admin reads it (CONTRACT §13). */
export interface IdentitySecret {
  identitySecret: string;
}

export const identityEndpoints = endpointGroup({
  /** CONTRACT §13: ties the visitor to the site's user, checked by the HMAC its server computed. */
  'POST /api/visitor/identify': { body: identifyBody, response: returns<IdentifiedVisitor>() },
  /** `Parley('setAttributes', …)`: attributes (and name, email, phone) without identity. */
  'POST /api/visitor/attributes': { body: attributesBody, response: returns<IdentifiedVisitor>() },
  /** Role Admin: the secret, made on first read. */
  'GET /api/access/identitySecret': { response: returns<IdentitySecret>() },
  /** Role Admin: a new secret; hashes made with the old one stop working at once. */
  'POST /api/access/identitySecret/rotate': { response: returns<IdentitySecret>() },
});
