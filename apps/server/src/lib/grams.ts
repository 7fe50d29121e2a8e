/**
 * The pieces of text the search indexes hold: every single character and every pair of neighbouring
 * characters of the lower-cased text, each once. Chinese has no spaces and its words are mostly one or two
 * characters, so words cannot be the unit; a pair is selective enough to find a phone number, a name or a
 * word among millions of messages, and a text holding a keyword holds every pair of the keyword. The index
 * only narrows the rows down: the search then checks each candidate with the same "contains" test as
 * before, so the index changes how fast a search is, never what it finds.
 *
 * PostgreSQL computes the same set in SQL (`parley_grams`, migration 037): both must agree, character for
 * character (code points, not UTF-16 units).
 */
export function textGrams(text: string): string[] {
  const chars = Array.from(text.toLowerCase());
  const grams = new Set<string>();
  for (let i = 0; i < chars.length; i += 1) {
    const char = chars[i] as string;
    grams.add(char);
    const next = chars[i + 1];
    if (next !== undefined) grams.add(char + next);
  }
  return [...grams];
}

/**
 * The grams a text must hold to contain `keyword`: its pairs (its one character when it has one). Empty
 * for an empty keyword, which any text contains.
 */
export function keywordGrams(keyword: string): string[] {
  const chars = Array.from(keyword.toLowerCase());
  if (chars.length === 1) return chars;
  const grams = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i += 1) grams.add((chars[i] as string) + (chars[i + 1] as string));
  return [...grams];
}

/**
 * Whether a text holds the keyword's grams exactly when it contains it, so that what the index finds
 * needs no "contains" check after it: a keyword of one or two characters (its one gram), none of which has
 * a case (Chinese, digits: lower-casing, in JavaScript or in either database, leaves them as they are) or
 * is a line break (which joins a visitor's fields in the index's text).
 */
export function gramsAreExact(keyword: string): boolean {
  const chars = Array.from(keyword);
  return (
    chars.length >= 1 &&
    chars.length <= 2 &&
    chars.every((char) => char !== '\n' && char !== '\r' && char.toLowerCase() === char && char.toUpperCase() === char)
  );
}

/**
 * Grams' tokens already spelled. A language's grams repeat from message to message (a few thousand
 * characters, their common pairs), and spelling each anew was about 40 % of indexing a message's text
 * (3 of 8 µs): the search indexer spells every message a busy site stores. Bounded: emptied when full.
 */
const tokens = new Map<string, string>();
const KEPT_TOKENS = 32_768;

/**
 * A gram as a token of SQLite's full-text index: `g` and six hex digits per character. The index's
 * tokenizer splits on spaces and punctuation and folds case; spelled this way every gram, a space or a
 * quote included, is one token of letters and digits that it keeps as it is.
 */
export function gramToken(gram: string): string {
  let token = tokens.get(gram);
  if (token !== undefined) return token;
  token = 'g';
  for (const char of gram) token += (char.codePointAt(0) as number).toString(16).padStart(6, '0');
  if (tokens.size >= KEPT_TOKENS) tokens.clear();
  tokens.set(gram, token);
  return token;
}

/** A text's grams as SQLite's index takes them: tokens separated by spaces. */
export function textTokens(text: string): string {
  return textGrams(text).map(gramToken).join(' ');
}
