import type { CreateTableBuilder } from 'kysely';
import type { DialectName } from '../dialect.js';

/** An auto-incrementing integer primary key named `id`, spelled the way each database wants it. */
export function idColumn<T extends string>(table: CreateTableBuilder<T, never>, dialect: DialectName): CreateTableBuilder<T, 'id'> {
  if (dialect === 'postgres') return table.addColumn('id', 'serial', (c) => c.primaryKey());
  return table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}
