import { randomInt } from 'node:crypto';
import { RECOVERY_CODE_COUNT } from '@parley/protocol';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { hashToken } from '../../lib/tokens.js';

/** RFC 6238 as every authenticator app reads it: SHA-1, six digits, 30-second steps. */
const PERIOD_S = 30;
const DIGITS = 6;
/** Steps either side of now a code is still taken: a phone's clock a little off, a code typed at a step's end. */
const WINDOW = 1;

/** The purpose a TOTP seed is sealed for (lib/sealed.ts): sealed seeds open for nothing else. */
export const MFA_SEAL_PURPOSE = 'agents.mfa_secret';

/** A new seed of 160 bits (RFC 4226's recommended length), in base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, issuer = '', label = ''): TOTP {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_S, secret: Secret.fromBase32(secret) });
}

/** The otpauth URL an authenticator app reads, and the same as a QR code (a `data:` URL of a PNG). */
export async function enrolment(secret: string, issuer: string, account: string) {
  const otpauthUrl = totp(secret, issuer, account).toString();
  const qrCode = await QRCode.toDataURL(otpauthUrl, { type: 'image/png', errorCorrectionLevel: 'M', margin: 2, width: 240 });
  return { otpauthUrl, qrCode };
}

export function isTotpCode(code: string): boolean {
  return /^\d{6}$/.test(code.replace(/\s+/g, ''));
}

/**
 * The time step a code belongs to, when it is right for now (within WINDOW steps); undefined otherwise.
 * The caller takes the step only if it is later than the last one taken, so a code works once.
 */
export function matchingStep(secret: string, code: string, now: number): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totp(secret).validate({ token, timestamp: now, window: WINDOW });
  if (delta === null) return undefined;
  return Math.floor(now / 1000 / PERIOD_S) + delta;
}

/** Letters and digits that cannot be misread for one another (no 0/o, 1/l/i). */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const RECOVERY_LENGTH = 16;

/** Fresh recovery codes, as shown once: `xxxx-xxxx-xxxx-xxxx` (about 79 random bits each). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    let code = '';
    for (let i = 0; i < RECOVERY_LENGTH; i += 1) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
    return code.match(/.{4}/g)?.join('-') ?? code;
  });
}

/**
 * How a recovery code is stored and looked up: case, spaces and dashes do not matter. A plain hash is
 * enough for codes of ~79 random bits, which no list of guesses reaches.
 */
export function recoveryCodeHash(code: string): string {
  return hashToken(code.toLowerCase().replace(/[\s-]+/g, ''));
}
