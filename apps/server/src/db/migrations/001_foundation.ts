import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

export function foundation(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('roles'), dialect)
        .addColumn('name', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('permissions', 'text', (c) => c.notNull())
        .addColumn('builtin', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();

      await idColumn(db.schema.createTable('agents'), dialect)
        .addColumn('uuid', 'varchar(36)', (c) => c.notNull().unique())
        .addColumn('username', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('nickname', 'varchar(64)', (c) => c.notNull())
        .addColumn('avatar', 'varchar(512)', (c) => c.notNull().defaultTo(''))
        .addColumn('password_hash', 'varchar(255)', (c) => c.notNull())
        .addColumn('role_id', 'integer', (c) => c.notNull().references('roles.id'))
        .addColumn('state', 'varchar(1)', (c) => c.notNull().defaultTo('0'))
        .addColumn('max_chats', 'integer', (c) => c.notNull().defaultTo(10))
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('pending', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('agents_role_id').on('agents').column('role_id').execute();

      await idColumn(db.schema.createTable('sessions'), dialect)
        .addColumn('agent_id', 'integer', (c) => c.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('refresh_until', 'varchar(32)', (c) => c.notNull())
        .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_agent_id').on('sessions').column('agent_id').execute();

      await idColumn(db.schema.createTable('login_log'), dialect)
        .addColumn('username', 'varchar(64)', (c) => c.notNull())
        .addColumn('agent_id', 'integer', (c) => c.references('agents.id').onDelete('set null'))
        .addColumn('ip', 'varchar(64)', (c) => c.notNull())
        .addColumn('user_agent', 'varchar(512)', (c) => c.notNull())
        .addColumn('result', 'varchar(16)', (c) => c.notNull())
        .addColumn('reason', 'varchar(32)', (c) => c.notNull())
        .addColumn('counted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('login_log_username_time').on('login_log').columns(['username', 'created_at']).execute();
      await db.schema.createIndex('login_log_ip_time').on('login_log').columns(['ip', 'created_at']).execute();
      await db.schema.createIndex('login_log_time').on('login_log').column('created_at').execute();
    },
  };
}
