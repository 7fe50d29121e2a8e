import { z } from 'zod';

/**
 * Characters that no name, address or message needs: C0 controls, DEL and C1 controls. NUL among them is
 * refused by PostgreSQL, so letting one through would make the same input behave differently per database.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this pattern is for
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
/**
 * A one-line field also refuses line and tab breaks, and the bidi embeddings, overrides and isolates that
 * can make a name read as something else in the console (the implicit marks LRM/RLM stay allowed).
 */
const LINE_BREAKERS = /[\t\n\r\u2028\u2029\u202A-\u202E\u2066-\u2069]/;

/** The text with every character a one-line field refuses replaced by U+FFFD, e.g. to log a refused input. */
export function safeLine(value: string): string {
  return value.replace(new RegExp(`${CONTROLS.source}|${LINE_BREAKERS.source}`, 'g'), '\uFFFD');
}

/** The issue params a refused string carries, so the server can say why in the user's language. */
export const CONTROL_CHARACTERS = 'controlCharacters';
/** The issue params of a value that a rule over several fields requires (e.g. an assigning rule's agent). */
export const REQUIRED = 'required';

export function isLineText(value: string): boolean {
  return !CONTROLS.test(value) && !LINE_BREAKERS.test(value);
}

export function isMultilineText(value: string): boolean {
  return !CONTROLS.test(value);
}

/**
 * A one-line text field (names, titles, addresses, filters, passwords): no control characters at all.
 * Checked last, so that whitespace a field trims away is not held against it.
 */
export function line(schema: z.ZodString = z.string()): z.ZodString {
  return schema.refine(isLineText, { params: { reason: CONTROL_CHARACTERS } });
}

/** A multi-line text field (messages, letters, comments): line breaks and tabs are its only controls. */
export function multiline(schema: z.ZodString = z.string()): z.ZodString {
  return schema.refine(isMultilineText, { params: { reason: CONTROL_CHARACTERS } });
}
