import { describe, expect, it } from 'vitest';
import { shownToVisitor, tipText } from './tips';

describe('tipText', () => {
  it('shows an unknown kind as the text it is', () => {
    expect(tipText('Free text from an old server', 'Alice', 'en')).toBe('Free text from an old server');
  });

  it('names the agent', () => {
    expect(tipText('tip.accepted', 'Alice', 'en')).toBe('Alice joined the conversation');
    expect(tipText('tip.transferred', '小李', 'zh')).toBe('对话已转接给 小李');
  });
});

describe('shownToVisitor', () => {
  it('leaves out tips about the visitor and keeps everything else', () => {
    expect(shownToVisitor({ role: 'tip', msg: 'tip.visitorLeft' })).toBe(false);
    expect(shownToVisitor({ role: 'tip', msg: 'tip.visitorBack' })).toBe(false);
    expect(shownToVisitor({ role: 'tip', msg: 'tip.ended' })).toBe(true);
    expect(shownToVisitor({ role: 'user', msg: 'tip.visitorLeft' })).toBe(true);
  });
});
