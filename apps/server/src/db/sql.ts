import { type RawBuilder, sql } from 'kysely';

/** Case-insensitive "contains", with LIKE wildcards in the text taken literally on both databases. */
export function containsText(column: string, text: string): RawBuilder<boolean> {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}
