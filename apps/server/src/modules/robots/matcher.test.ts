import { describe, expect, it } from 'vitest';
import { Matcher, normalize, stem, tokenize } from './matcher.js';

const pairs = [
  { id: 1, questions: ['When will my order ship?', 'How long does shipping take?'], answer: 'ship', image: '' },
  { id: 2, questions: ['How do I get a refund?', 'I want my money back'], answer: 'refund', image: '' },
  { id: 3, questions: ['怎么开发票？', '可以开发票吗？'], answer: '发票', image: '' },
  { id: 4, questions: ['退款多久到账？'], answer: '退款', image: '' },
  { id: 5, questions: ['How do I reset my password?'], answer: 'Use the link on the sign-in page.', image: '' },
  { id: 6, questions: ['运费多少钱？'], answer: '满 99 元包邮。', image: '' },
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

  it('cuts Chinese at question-shape words and reads the rest as character bigrams', () => {
    const terms = tokenize('请问退款几天到账');
    expect(terms).toContain('退款');
    expect(terms).toContain('到账');
    expect(terms).not.toContain('请问');
  });

  it('folds synonyms of the support domain on both sides, in Chinese and English', () => {
    expect(tokenize('退钱')).toEqual(tokenize('退款'));
    expect(tokenize('邮费')).toEqual(tokenize('运费'));
    expect(tokenize('where is my parcel')).toEqual(tokenize('where is my package'));
    expect(tokenize('I want my money back')).toContain('refund');
    expect(tokenize('delivering')).toEqual(tokenize('shipping'));
  });
});

describe('Matcher', () => {
  const matcher = new Matcher(pairs);

  it('finds the pair of a paraphrase, in English and in Chinese, with a 0..1 score', () => {
    const english = matcher.match('shipping takes how long', 0.5).best;
    expect(english).toMatchObject({ id: 1, question: 'How long does shipping take?' });
    expect(english?.score).toBeLessThanOrEqual(1);
    expect(matcher.match('When will my order ship?', 0.5).best?.score).toBe(1);
    expect(matcher.match('退款几天到账', 0.5).best?.id).toBe(4);
    expect(matcher.match('需要开发票', 0.5).best?.id).toBe(3);
  });

  it('meets a paraphrase said with synonyms, and ranks the words said above the synonym', () => {
    expect(matcher.match('钱退回来要多长时间', 0.3).best?.id).toBe(4);
    expect(matcher.match('邮费怎么算', 0.3).best?.id).toBe(6);
    expect(matcher.match('can i get my money back', 0.5).best).toMatchObject({ id: 2, question: 'I want my money back' });
    expect(matcher.match('can i get a refund', 0.5).best).toMatchObject({ id: 2, question: 'How do I get a refund?' });
  });

  it('reads an English word one typing slip away as the known word', () => {
    expect(matcher.match('how do i reset my pasword', 0.5).best?.id).toBe(5);
    expect(matcher.match('how do i get a refnud', 0.5).best?.id).toBe(2);
  });

  it('finds a pair by its answer too, weighted lower than by its phrasings', () => {
    // "包邮" is only in the answer of pair 6: its phrasing shares nothing with the question.
    const unsure = matcher.match('包邮吗', 0.5);
    expect(unsure.best).toBeNull();
    expect(unsure.suggestions[0]).toMatchObject({ id: 6, question: '运费多少钱？' });
    expect(unsure.suggestions[0]?.score).toBeGreaterThan(0);
  });

  it('answers null under the threshold with the closest pairs as suggestions', () => {
    const unsure = matcher.match('refund for the shipping', 1);
    expect(unsure.best).toBeNull();
    expect(unsure.suggestions.map((s) => s.id).sort()).toEqual([1, 2]);
    expect(matcher.match('weather on mars', 0).best).toBeNull();
  });

  it('adds, replaces and removes a pair in place', () => {
    const live = new Matcher(pairs);
    const size = live.size;
    live.add({ id: 7, questions: ['Do you sell gift cards?'], answer: 'Yes.', image: '' });
    expect(live.size).toBe(size + 1);
    expect(live.match('do you sell gift cards', 0.5).best?.id).toBe(7);
    live.add({ id: 7, questions: ['Can I buy a voucher?', 'Is there a voucher for friends?'], answer: 'Yes.', image: '' });
    expect(live.size).toBe(size + 2);
    expect(live.match('do you sell gift cards', 0.5).best?.id).not.toBe(7);
    expect(live.match('buy a voucher', 0.5).best?.id).toBe(7);
    live.remove(7);
    expect(live.size).toBe(size);
    expect(live.match('buy a voucher', 0).best?.id).not.toBe(7);
    // The scores after the changes are those of an index built from the same pairs at once.
    expect(live.match('退款几天到账', 0)).toEqual(new Matcher(pairs).match('退款几天到账', 0));
  });
});
