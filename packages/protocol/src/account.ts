import { z } from 'zod';
import { deleteBody } from './api.js';
import { endpointGroup, returns } from './endpoint.js';
import { line } from './strings.js';

// ——— Account security (CONTRACT §15): two-factor sign-in and one's sessions ———

/** What `POST /api/login` answers: a token, or, with two-factor sign-in on, a ticket for the code step. */
export type LoginAnswer = { token: string } | { mfaRequired: true; ticket: string };

/** A TOTP code (six digits) or a recovery code (spaces and dashes are ignored in it). */
export const mfaCode = line(z.string().trim().min(1).max(64));
export const mfaCodeBody = z.object({ code: mfaCode });
export const loginMfaBody = z.object({ ticket: line(z.string().trim().min(1).max(128)), code: mfaCode });

/** A seed being set up: the secret in base32 for typing, the same as an otpauth URL and as a QR code (`data:` URL). */
export interface MfaSetup {
  secret: string;
  otpauthUrl: string;
  qrCode: string;
}

/** Shown once, when two-factor sign-in is turned on: each code signs in once instead of a TOTP code. */
export interface MfaEnabled {
  recoveryCodes: string[];
}

/** How many recovery codes one gets; each is 16 characters of base32 (80 random bits). */
export const RECOVERY_CODE_COUNT = 10;

/** One of one's sessions (`GET /api/personal/sessions`); `current` is the one asking. */
export interface AccountSession {
  id: number;
  current: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  ip: string;
  userAgent: string;
}

export const sessionRevokeBody = deleteBody;

export const accountEndpoints = endpointGroup({
  /** The second step of a sign-in with two-factor sign-in on: the ticket of the first and a code. */
  'POST /api/login/mfa': { body: loginMfaBody, response: returns<{ token: string }>() },
  'POST /api/personal/mfa/setup': { response: returns<MfaSetup>() },
  'POST /api/personal/mfa/enable': { body: mfaCodeBody, response: returns<MfaEnabled>() },
  'POST /api/personal/mfa/disable': { body: mfaCodeBody, response: returns<void>() },
  'GET /api/personal/sessions': { response: returns<AccountSession[]>() },
  'POST /api/personal/sessions/revoke': { body: sessionRevokeBody, response: returns<void>() },
});
