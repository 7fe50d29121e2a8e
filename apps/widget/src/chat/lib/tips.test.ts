import { TIP_TEXTS as PROTOCOL_TIPS, tipText as protocolTipText } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { shownToVisitor, TIP_TEXTS, tipText } from './tips';

describe('tipText', () => {
  it('has the same tips as the protocol, worded the same', () => {
    expect(TIP_TEXTS).toEqual(PROTOCOL_TIPS);
    for (const kind of [...Object.keys(PROTOCOL_TIPS), 'Free text from an old server']) {
      for (const lang of ['zh', 'en'] as const) expect(tipText(kind, 'Alice', lang)).toBe(protocolTipText(kind, 'Alice', lang));
    }
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
