/**
 * A cell a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, or a leading tab or carriage return)
 * gets a leading `'`, so a visitor's text can never run as one when an agent opens an export. Every CSV
 * export (history, statistics, knowledge base, audit log) writes its cells through it.
 */
export function neutralized(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
}
