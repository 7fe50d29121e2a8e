import { type RawBuilder, sql } from 'kysely';

/** Case-insensitive "contains", with LIKE wildcards in the text taken literally on both databases. */
export function containsText(column: string | RawBuilder<unknown>, text: string): RawBuilder<boolean> {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  return sql<boolean>`lower(${typeof column === 'string' ? sql.ref(column) : column}) like ${pattern} escape '\\'`;
}
