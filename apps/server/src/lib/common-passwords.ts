import { dictionary } from '@zxcvbn-ts/language-common';

let common: Set<string> | undefined;

/**
 * Whether a password is among the ~49,000 most common ones (zxcvbn's list, MIT), compared without case.
 * The set is built on first use and kept: one lookup afterwards.
 */
export function isCommonPassword(password: string): boolean {
  common ??= new Set(dictionary['passwords-common'].map((word) => word.toLowerCase()));
  return common.has(password.toLowerCase());
}
