import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/**
 * WeChat's official account and mini program (§11, issue 25).
 *
 * - `wechat_users`: one row per openid and channel, naming its visitor. The visitor's credential is kept
 *   sealed, so that a push can write as the visitor through the same path as the widget.
 * - `wechat_pushes`: the key of each event taken (`FromUserName` + `CreateTime`), unique, so that WeChat's
 *   repeated pushes of it are recorded once, across processes (a message is kept once by its onlyID,
 *   `wx-<MsgId>`, unique per visitor in `messages`).
 * - `wechat_outbox`: messages waiting to reach WeChat; a row is claimed by one process at a time
 *   (`claimed_until`) and tried again at `next_at` after a failure that may pass. It survives a restart.
 * - `wechat_tokens`: the access token of each app, sealed, shared by every process until it expires.
 * - `wechat_status`: when each channel last received a push, and its last error, for the settings page.
 * - `messages.delivery` / `delivery_error`: whether a message to a WeChat visitor reached WeChat.
 */
export function wechat(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('wechat_users'), dialect)
        .addColumn('channel', 'varchar(16)', (c) => c.notNull())
        .addColumn('openid', 'varchar(128)', (c) => c.notNull())
        .addColumn('unionid', 'varchar(128)', (c) => c.notNull().defaultTo(''))
        .addColumn('visitor_id', 'integer', (c) => c.notNull().unique().references('visitors.id').onDelete('cascade'))
        .addColumn('credential', 'text', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addUniqueConstraint('wechat_users_openid', ['channel', 'openid'])
        .execute();
      await db.schema
        .createTable('wechat_pushes')
        .addColumn('channel', 'varchar(16)', (c) => c.notNull())
        .addColumn('push_key', 'varchar(200)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .addPrimaryKeyConstraint('wechat_pushes_key', ['channel', 'push_key'])
        .execute();
      await db.schema.createIndex('wechat_pushes_time').on('wechat_pushes').column('created_at').execute();
      await idColumn(db.schema.createTable('wechat_outbox'), dialect)
        .addColumn('message_id', 'integer', (c) => c.notNull().unique().references('messages.id').onDelete('cascade'))
        .addColumn('visitor_id', 'integer', (c) => c.notNull().references('visitors.id').onDelete('cascade'))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_at', 'varchar(32)', (c) => c.notNull())
        .addColumn('claimed_until', 'varchar(32)')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('wechat_outbox_due').on('wechat_outbox').column('next_at').execute();
      await db.schema.createIndex('wechat_outbox_visitor').on('wechat_outbox').columns(['visitor_id', 'id']).execute();
      await db.schema
        .createTable('wechat_tokens')
        .addColumn('app_key', 'varchar(100)', (c) => c.primaryKey())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('wechat_status')
        .addColumn('channel', 'varchar(16)', (c) => c.primaryKey())
        .addColumn('last_received_at', 'varchar(32)')
        .addColumn('last_error', 'varchar(500)')
        .addColumn('last_error_at', 'varchar(32)')
        .execute();
      await db.schema.alterTable('messages').addColumn('delivery', 'varchar(16)').execute();
      await db.schema.alterTable('messages').addColumn('delivery_error', 'varchar(32)').execute();
    },
  };
}
