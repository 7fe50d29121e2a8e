import type { Key } from 'react';

/**
 * Below this width a list is drawn as cards, one per row, instead of a table. It is antd's `md`
 * breakpoint, not the console's mobile one (992 px): from 768 px a tablet shows most of a table's
 * columns beside the fixed actions, while a phone showed two of six and scrolled the rest out of sight.
 */
export const CARD_BELOW = 768;
export const CARD_QUERY = `(max-width: ${CARD_BELOW - 0.02}px)`;

/** The rows of the page on screen when the list pages itself (the whole list is at hand, no `total`). */
export function pageOf<Row>(rows: Row[], current: number, pageSize: number): Row[] {
  const last = Math.max(1, Math.ceil(rows.length / pageSize));
  const page = Math.min(Math.max(1, current), last);
  return rows.slice((page - 1) * pageSize, page * pageSize);
}

/** The "select this page" box: checked when every selectable card is, half when some are. */
export function pageSelection(selected: readonly Key[], selectable: readonly Key[]): { checked: boolean; indeterminate: boolean } {
  const chosen = new Set(selected);
  const count = selectable.filter((key) => chosen.has(key)).length;
  return { checked: count > 0 && count === selectable.length, indeterminate: count > 0 && count < selectable.length };
}

/** The selection after one card's box is ticked or cleared; rows picked on other pages stay picked. */
export function toggleRows<Row>(selected: Row[], rows: Row[], keyOf: (row: Row) => Key, on: boolean): Row[] {
  const keys = new Set(rows.map(keyOf));
  const rest = selected.filter((row) => !keys.has(keyOf(row)));
  return on ? [...rest, ...rows] : rest;
}
