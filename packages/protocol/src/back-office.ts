import { z } from 'zod';
import { avatarUrl, MAX_PASSWORD_LENGTH, password } from './api.js';
import { endpointGroup, returns } from './endpoint.js';
import { line } from './strings.js';

// ——— Region tree (`/api/area/getList`, seed §3) ———

/** The macro regions a province belongs to (seed §3 `region`). */
export const MACRO_REGIONS = ['north', 'northeast', 'east', 'central', 'south', 'southwest', 'northwest'] as const;
export type MacroRegion = (typeof MACRO_REGIONS)[number];

/** A node of the GB/T 2260 tree: province, city/prefecture or district/county, by six-digit code. */
export interface Region {
  name: string;
  code: string;
  children: Region[];
  region?: MacroRegion;
  autonomousRegion?: boolean;
  provinceLevelCity?: boolean;
}

/** The pseudo-province every address outside China falls in (not a GB/T 2260 code). */
export const ABROAD_REGION_CODE = '990000';

/**
 * A region code with the codes of the city and province it lies in, for the region rules (a rule naming
 * a province covers its cities and districts); none for an unknown region.
 */
export function regionCodesOf(code: string): string[] {
  if (!/^\d{6}$/.test(code)) return [];
  return [...new Set([code, `${code.slice(0, 4)}00`, `${code.slice(0, 2)}0000`])];
}

// ——— Personal (`/api/personal`) ———

export interface Personal {
  username: string;
  nickname: string;
  avatar: string;
  notify: { newUser: boolean; newMsg: boolean; sound: boolean; transfer: boolean; letter: boolean };
  /** Where notices about the account (a new password, two-factor sign-in turned on or off) are mailed; '' for nowhere. */
  email: string;
  mfa: { enabled: boolean; recoveryCodesLeft: number };
}

/** A new `password` needs the current one in `oldPassword` (the server checks both). */
export const personalBody = z.object({
  nickname: line(z.string().trim().min(1).max(64)),
  avatar: avatarUrl,
  password: password.optional(),
  oldPassword: line(z.string().max(MAX_PASSWORD_LENGTH)).optional(),
  /** `transfer` and `letter` left out: kept as they are (clients from before they existed). */
  notify: z.object({
    newUser: z.boolean(),
    newMsg: z.boolean(),
    sound: z.boolean(),
    transfer: z.boolean().optional(),
    letter: z.boolean().optional(),
  }),
  /** Left out: kept as it is. */
  email: z.union([z.literal(''), z.email().max(254)]).optional(),
});

// ——— Integration (`/api/access`) ———

export interface Integration {
  /** The snippet a site pastes into its pages. */
  script: string;
  /** The standalone chat page. */
  chatUrl: string;
  /** `chatUrl` as a QR code: a `data:` URL of a PNG. */
  qrCode: string;
  links: { id: number; name: string; url: string }[];
}

/** Region tree, personal profile and integration (CONTRACT §7). */
export const backOfficeEndpoints = endpointGroup({
  'GET /api/area/getList': { response: returns<{ list: Region[] }>() },
  'GET /api/personal': { response: returns<Personal>() },
  'POST /api/personal': { body: personalBody, response: returns<Personal>() },
  'GET /api/access': { response: returns<Integration>() },
});
