import { describe, expect, it } from 'vitest';
import { gramsAreExact, keywordGrams, textGrams } from './grams.js';

describe('gramsAreExact', () => {
  it('holds for one or two characters without case, where holding the gram is containing the keyword', () => {
    for (const keyword of ['罗', '罗军', '13', '7', '票。']) {
      expect(gramsAreExact(keyword)).toBe(true);
      // The keyword's grams are one, and a text holds it exactly when the text contains the keyword.
      expect(keywordGrams(keyword)).toHaveLength(1);
      const gram = keywordGrams(keyword)[0] as string;
      expect(textGrams(`前${keyword}后`)).toContain(gram);
      expect(textGrams(`${Array.from(keyword).join(' ')}`).includes(gram)).toBe(Array.from(keyword).length === 1);
    }
  });

  it('does not hold for longer keywords, letters with a case, or a line break', () => {
    for (const keyword of ['', '罗秀英', '138', 'ab', 'A', 'é', 'ǅ', '罗\n', '\n']) expect(gramsAreExact(keyword)).toBe(false);
  });
});
