import { describe, expect, it } from 'vitest';
import { firstTakenAfter, spansAfter, spansOf, tookMessage } from './message-spans.js';

describe('message spans', () => {
  it('open when a webhook begins to take messages and close when it stops, at the newest message then', () => {
    const made = spansAfter(null, true, 10);
    expect(made).toBe('[[10,null]]');
    expect(spansAfter(made ?? null, true, 15)).toBeUndefined();
    const disabled = spansAfter(made ?? null, false, 20);
    expect(disabled).toBe('[[10,20]]');
    expect(spansAfter(disabled ?? null, false, 25)).toBeUndefined();
    const again = spansOf(spansAfter(disabled ?? null, true, 30) ?? null);
    expect(again).toEqual([
      [10, 20],
      [30, null],
    ]);
    // Told: stored while it took them; not before it was made, nor while it was disabled.
    expect([10, 11, 20, 21, 30, 31, 1000].filter((id) => tookMessage(again, id))).toEqual([11, 20, 31, 1000]);
  });

  it('say where the read of messages may start for what was read so far', () => {
    const spans = spansOf('[[10,20],[30,null]]');
    expect(firstTakenAfter(spans, 0)).toBe(10);
    expect(firstTakenAfter(spans, 20)).toBe(30);
    expect(firstTakenAfter(spansOf('[[10,20]]'), 20)).toBeUndefined();
    expect(firstTakenAfter([], 0)).toBeUndefined();
  });

  it('keep the newest spans, and read nothing from a malformed list', () => {
    let stored: string | null = null;
    for (let i = 0; i < 40; i++) stored = spansAfter(stored, i % 2 === 0, i * 10) ?? stored;
    const kept = spansOf(stored);
    expect(kept.length).toBeLessThanOrEqual(16);
    expect(kept.at(-1)).toEqual([380, 390]);
    expect(spansOf('not json')).toEqual([]);
    expect(spansOf('[[1,"x"],[2,null]]')).toEqual([[2, null]]);
  });
});
