import { describe, expect, it } from 'vitest';
import { mentionedNames } from './notes.js';

describe('mentionedNames', () => {
  it('finds @username at the start or after a space, once each, without the sentence’s punctuation', () => {
    expect(mentionedNames('@lin please ask @wang.li, then @lin again.')).toEqual(['lin', 'wang.li']);
    expect(mentionedNames('line one\n@小王 看一下')).toEqual(['小王']);
  });

  it('ignores addresses and a lone @', () => {
    expect(mentionedNames('write to ann@example.com or @ nobody')).toEqual([]);
  });
});
