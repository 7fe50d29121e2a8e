import { hash, randomBytes } from 'node:crypto';

/** An opaque bearer token: 256 random bits. Only its hash is stored. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * One-shot: every message hashes its sender's token, and a Hash object per call is a native object each,
 * whose release lengthened every young-generation collection (bench/README.md).
 */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** Reads `Authorization: Bearer <token>`. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** A visitor's credential: 144 random bits, known only to the visitor's browser. Only its hash is stored. */
export function newVisitorCredential(): string {
  return randomBytes(18).toString('base64url');
}

/** A visitor's public id, what agents name it by: random, so nothing about the credential can be learnt from it. */
export function newVisitorPublicId(): string {
  return randomBytes(16).toString('base64url');
}
