import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

export function uploads(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('uploads'), dialect)
        .addColumn('name', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('original_name', 'varchar(255)', (c) => c.notNull())
        .addColumn('mime', 'varchar(128)', (c) => c.notNull())
        .addColumn('size', 'integer', (c) => c.notNull())
        .addColumn('visitor_id', 'integer', (c) => c.references('visitors.id').onDelete('set null'))
        .addColumn('agent_id', 'integer', (c) => c.references('agents.id').onDelete('set null'))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
    },
  };
}
