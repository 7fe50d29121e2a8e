import { describe, expect, it } from 'vitest';
import { keywordReply } from './keywords.js';

const rules = [
  { words: ['price', '价格'], reply: 'See our price list.' },
  { words: ['ABC'], reply: 'About ABC.' },
  { words: ['price list'], reply: 'Never reached: an earlier rule matches first.' },
];

describe('keywordReply', () => {
  it('answers the first rule whose word the message contains, ignoring case and width', () => {
    expect(keywordReply(rules, 'What is the PRICE list?')).toBe('See our price list.');
    expect(keywordReply(rules, '请问价格多少')).toBe('See our price list.');
    expect(keywordReply(rules, 'tell me about ａｂｃ please')).toBe('About ABC.');
    expect(keywordReply(rules, 'Ｐｒｉｃｅ？')).toBe('See our price list.');
  });

  it('answers nothing when no word is contained', () => {
    expect(keywordReply(rules, 'hello')).toBeUndefined();
    expect(keywordReply([], 'price')).toBeUndefined();
  });
});
