import { describe, expect, it } from 'vitest';
import { gramsAreExact, gramToken, keywordGrams, textGrams, textTokens } from './grams.js';

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

describe('gramToken', () => {
  it('spells a gram as g and six hex digits per code point, the same however often it is asked and past its cache', () => {
    const expected = { 好: 'g00597d', a1: 'g000061000031', ' "': 'g000020000022', '😀x': 'g01f600000078' };
    for (let round = 0; round < 2; round += 1) for (const [gram, token] of Object.entries(expected)) expect(gramToken(gram)).toBe(token);
    // More grams than the cache keeps: it empties, and spells them as before.
    for (let code = 0x4e00; code < 0x4e00 + 40_000; code += 1) gramToken(String.fromCodePoint(code));
    for (const [gram, token] of Object.entries(expected)) expect(gramToken(gram)).toBe(token);
    expect(textTokens('Ab好')).toBe('g000061 g000061000062 g000062 g00006200597d g00597d');
  });
});
