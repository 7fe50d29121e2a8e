import { TIP_TEXTS as PROTOCOL_TIPS, tipText as protocolTipText } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { TIP_TEXTS, tipText } from './tips';

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
