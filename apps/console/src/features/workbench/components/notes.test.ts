import type { Note } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { placeNotes } from './Notes';

const note = (id: number, afterSeq: number): Note => ({
  id,
  YQToken: 'v',
  conversationId: 1,
  onlyID: `n${id}`,
  msg: 'x',
  serviceID: 'a',
  nickname: 'A',
  time: '2026-11-24T10:00:00Z',
  afterSeq,
  mentions: [],
});

describe('placeNotes', () => {
  it('puts each note after the last message it followed, pending messages aside', () => {
    const { top, after } = placeNotes([note(1, 4), note(2, 5), note(3, 9)], [3, 4, 6, 0], true);
    expect(top).toEqual([]);
    expect(after.get(1)?.map((n) => n.id)).toEqual([1, 2]);
    expect(after.get(2)?.map((n) => n.id)).toEqual([3]);
  });

  it('shows a note older than the first message held only once nothing older is left to load', () => {
    expect(placeNotes([note(1, 1)], [5, 6], false).top).toEqual([]);
    expect(placeNotes([note(1, 1)], [5, 6], true).top.map((n) => n.id)).toEqual([1]);
  });
});
