import { describe, expect, it } from 'vitest';
import { Matcher, normalize, stem, tokenize } from './matcher.js';

const pairs = [
  { id: 1, questions: ['When will my order ship?', 'How long does shipping take?'], answer: 'ship', image: '' },
  { id: 2, questions: ['How do I get a refund?', 'I want my money back'], answer: 'refund', image: '' },
  { id: 3, questions: ['怎么开发票？', '可以开发票吗？'], answer: '发票', image: '' },
  { id: 4, questions: ['退款多久到账？'], answer: '退款', image: '' },
];

describe('normalize and tokenize', () => {
  it('folds full width, case and punctuation', () => {
    expect(normalize('ＲＥＦＵＮＤ，Ｐｌｅａｓｅ！！')).toBe('refund please');
    expect(tokenize('How long does SHIPPING take?')).toEqual(['long', 'ship', 'take']);
  });

  it('stems English suffixes and leaves short words alone', () => {
    expect(['refunds', 'refunded', 'refunding', 'shipping', 'billing', 'bus'].map(stem)).toEqual([
      'refund',
      'refund',
      'refund',
      'ship',
      'bill',
      'bus',
    ]);
  });

  it('cuts Chinese into words and adds character bigrams', () => {
    const terms = tokenize('退款几天到账');
    expect(terms).toContain('退款');
    expect(terms).toContain('到账');
  });
});

describe('Matcher', () => {
  const matcher = new Matcher(pairs);

  it('finds the pair of a paraphrase, in English and in Chinese, with a 0..1 score', () => {
    const english = matcher.match('shipping takes how long', 0.5).best;
    expect(english).toMatchObject({ id: 1, question: 'How long does shipping take?' });
    expect(english?.score).toBeLessThanOrEqual(1);
    expect(matcher.match('退款几天到账', 0.5).best?.id).toBe(4);
    expect(matcher.match('需要开发票', 0.5).best?.id).toBe(3);
  });

  it('answers null under the threshold with the closest pairs as suggestions', () => {
    const unsure = matcher.match('refund for the shipping', 1);
    expect(unsure.best).toBeNull();
    expect(unsure.suggestions.map((s) => s.id).sort()).toEqual([1, 2]);
    expect(matcher.match('weather on mars', 0).best).toBeNull();
  });
});
