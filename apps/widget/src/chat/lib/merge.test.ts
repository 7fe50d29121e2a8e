import type { Message } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { type ChatItem, firstSeq, heldThrough, isGap, lastSeq, markWithdrawn, mergeMessages } from './merge';
import { storedMessage } from './messages.fixture';

const stored = (seq: number, onlyID = `m${seq}`, extra: Partial<Message> = {}): ChatItem =>
  storedMessage(seq, { YQToken: 'token', onlyID, ...extra });
const local = (onlyID: string): ChatItem => ({ ...stored(0, onlyID), role: 'user', status: 'sending' });

describe('mergeMessages', () => {
  it('orders stored messages by seq whatever order they arrive in', () => {
    const merged = mergeMessages([stored(3)], [stored(1), stored(2)]);
    expect(merged.map((item) => item.seq)).toEqual([1, 2, 3]);
  });

  it('never duplicates a message delivered twice (push and catch-up)', () => {
    const merged = mergeMessages(mergeMessages([], [stored(1), stored(2)]), [stored(2), stored(3), stored(1)]);
    expect(merged.map((item) => item.onlyID)).toEqual(['m1', 'm2', 'm3']);
  });

  it('replaces a local message by its stored copy, matched by onlyID', () => {
    const typed = local('abc');
    const merged = mergeMessages([stored(1), typed], [stored(2, 'abc', { role: 'user' })]);
    expect(merged).toHaveLength(2);
    expect(merged[1]?.seq).toBe(2);
    expect(merged[1]?.status).toBeUndefined();
  });

  it('keeps a stored copy when a late local echo arrives', () => {
    const merged = mergeMessages([stored(1, 'abc')], [local('abc')]);
    expect(merged).toEqual([stored(1, 'abc')]);
  });

  it('keeps local messages after stored ones, in the order typed', () => {
    const merged = mergeMessages([local('a'), local('b')], [stored(1)]);
    expect(merged.map((item) => item.onlyID)).toEqual(['m1', 'a', 'b']);
  });

  it('keeps one message per seq', () => {
    const merged = mergeMessages([stored(1, 'x')], [stored(1, 'y')]);
    expect(merged.filter((item) => item.seq === 1)).toHaveLength(1);
  });

  it('keeps a withdrawal when an older copy arrives again', () => {
    const withdrawn = markWithdrawn([stored(1)], 'm1');
    expect(mergeMessages(withdrawn, [stored(1)])[0]?.withdrawn).toBe(true);
  });
});

describe('lastSeq and isGap', () => {
  it('finds the highest seq held, ignoring local messages', () => {
    expect(lastSeq([stored(4), local('a'), stored(2)])).toBe(4);
    expect(lastSeq([])).toBe(0);
  });

  it('reports a gap only when seqs were skipped', () => {
    expect(isGap(4, 5)).toBe(false);
    expect(isGap(4, 4)).toBe(false);
    expect(isGap(4, 6)).toBe(true);
    expect(isGap(0, 1)).toBe(false);
  });
});

describe('heldThrough', () => {
  it('ends the unbroken run from the oldest message held, so a catch-up fetches what a gap skipped', () => {
    expect(heldThrough([])).toBe(0);
    expect(heldThrough([stored(1), stored(2), stored(4)])).toBe(2);
    expect(heldThrough([stored(41), stored(42), stored(43), local('a')])).toBe(43);
    expect(heldThrough([stored(3), stored(1)])).toBe(1);
  });
});

describe('firstSeq', () => {
  it('finds the oldest stored message, ignoring local ones', () => {
    expect(firstSeq([])).toBe(0);
    expect(firstSeq([local('a'), stored(51), stored(50)])).toBe(50);
  });
});
