import { z } from 'zod';

// The ids of the chat API, apart from its bodies: identity and records read them without the rest.

/** A visitor credential: 128 random bits or more, base64url. Known only to the visitor's browser. */
export const yqToken = z.string().regex(/^[A-Za-z0-9_-]{22,64}$/);
/**
 * A visitor's public id: what agents see in `YQToken` and name a visitor by. It grants nothing on the
 * visitor API.
 */
export const visitorId = z.string().regex(/^[A-Za-z0-9_-]{16,64}$/);
/** A chat link's key: the `link` parameter of `/chat?link=<key>` (CONTRACT §7, links). */
export const linkKey = z.string().regex(/^[A-Za-z0-9_-]{3,32}$/);
/** A client-made message id that makes a send idempotent. */
export const onlyId = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/);
