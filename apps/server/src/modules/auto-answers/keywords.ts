/** A keyword rule of the `autoAnswer` settings page. */
export interface KeywordRule {
  words: string[];
  reply: string;
}

/**
 * Folds what a visitor may type several ways into one form: NFKC makes full-width letters, digits and
 * spaces (common with Chinese input methods) their half-width selves, then case is ignored.
 */
function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** The reply of the first rule one of whose words the message contains; undefined when none does. */
export function keywordReply(rules: readonly KeywordRule[], message: string): string | undefined {
  const folded = fold(message);
  for (const rule of rules) {
    if (rule.reply.trim() === '') continue;
    if (rule.words.some((word) => word.trim() !== '' && folded.includes(fold(word.trim())))) return rule.reply;
  }
  return undefined;
}
