import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/**
 * API tokens (CONTRACT §12): a named credential of an agent for scripts and other systems. Only the
 * token's SHA-256 is stored; its grants are a JSON list, cut at each call to what its creator then holds.
 * A revoked token keeps its row (`revoked_at`) so the audit log's `token:<id>` stays readable.
 */
export function apiTokens(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('api_tokens'), dialect)
        .addColumn('agent_id', 'integer', (c) => c.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('name', 'varchar(64)', (c) => c.notNull())
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('permissions', 'text', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(32)')
        .addColumn('last_used_at', 'varchar(32)')
        .addColumn('revoked_at', 'varchar(32)')
        .execute();
      await db.schema.createIndex('api_tokens_agent').on('api_tokens').column('agent_id').execute();
    },
  };
}
