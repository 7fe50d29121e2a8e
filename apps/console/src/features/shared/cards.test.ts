import { describe, expect, it } from 'vitest';
import { pageOf, pageSelection, toggleRows } from './cards';

describe('pageOf', () => {
  const rows = [1, 2, 3, 4, 5];
  it('cuts the page on screen out of the whole list', () => {
    expect(pageOf(rows, 1, 2)).toEqual([1, 2]);
    expect(pageOf(rows, 3, 2)).toEqual([5]);
  });
  it('keeps to the last page when the list got shorter', () => {
    expect(pageOf(rows, 9, 2)).toEqual([5]);
    expect(pageOf([], 2, 10)).toEqual([]);
  });
});

describe('pageSelection', () => {
  it('is checked only when every selectable card is', () => {
    expect(pageSelection([1, 2], [1, 2])).toEqual({ checked: true, indeterminate: false });
    expect(pageSelection([1], [1, 2])).toEqual({ checked: false, indeterminate: true });
    expect(pageSelection([], [1, 2])).toEqual({ checked: false, indeterminate: false });
  });
  it('ignores rows picked on another page', () => {
    expect(pageSelection([7], [1, 2])).toEqual({ checked: false, indeterminate: false });
    expect(pageSelection([7, 1, 2], [1, 2])).toEqual({ checked: true, indeterminate: false });
  });
  it('has nothing to check on a page without selectable cards', () => {
    expect(pageSelection([], [])).toEqual({ checked: false, indeterminate: false });
  });
});

describe('toggleRows', () => {
  const key = (row: { id: number }) => row.id;
  const a = { id: 1 };
  const b = { id: 2 };
  const c = { id: 3 };
  it('adds and removes rows once each, keeping the others', () => {
    expect(toggleRows([a], [b], key, true)).toEqual([a, b]);
    expect(toggleRows([a, b], [b], key, true)).toEqual([a, b]);
    expect(toggleRows([a, b, c], [a, c], key, false)).toEqual([b]);
  });
});
