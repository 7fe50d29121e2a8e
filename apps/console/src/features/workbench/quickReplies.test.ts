import { describe, expect, it } from 'vitest';
import { searchQuickReplies } from './quickReplies';

const GROUPS = [
  {
    name: 'Greetings',
    items: [
      { title: 'Hello', content: 'Hello! How can I help you today?' },
      { title: 'Later', content: 'Is there anything else I can help you with?' },
    ],
  },
  { name: 'Shipping', items: [{ title: 'Abroad', content: 'We ship to 40 countries; delivery takes 5 to 10 days.' }] },
  { name: '售后', items: [{ title: '退货', content: '七天内可无理由退货。' }] },
];

describe('searchQuickReplies', () => {
  it('gives every group with its replies for an empty search', () => {
    expect(searchQuickReplies(GROUPS, '  ')).toEqual(GROUPS);
  });

  it('matches the title or the content, in any case, and drops groups left empty', () => {
    expect(searchQuickReplies(GROUPS, 'abroad')).toEqual([GROUPS[1]]);
    expect(searchQuickReplies(GROUPS, 'ANYTHING else')).toEqual([{ name: 'Greetings', items: [GROUPS[0]?.items[1]] }]);
    expect(searchQuickReplies(GROUPS, '退货')).toEqual([GROUPS[2]]);
  });

  it('needs every word of the search, and skips replies without content', () => {
    expect(searchQuickReplies(GROUPS, 'help today')).toEqual([{ name: 'Greetings', items: [GROUPS[0]?.items[0]] }]);
    expect(searchQuickReplies(GROUPS, 'help nowhere')).toEqual([]);
    expect(searchQuickReplies([{ name: 'Drafts', items: [{ title: 'Empty', content: ' ' }] }], '')).toEqual([]);
  });
});
