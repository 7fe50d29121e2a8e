import type { Kysely } from 'kysely';

/**
 * What WeChat's rules need kept per user and channel (§11, issue 25):
 *
 * - `wechat_users.last_interaction_at`: the user's last message or window-opening event; replies may reach
 *   them for 48 hours after it. `window_sent`: replies sent since then, held to the configured quota.
 * - `wechat_users.subscribed`: 1 after `subscribe`, 0 after `unsubscribe`, null while not known (a mini
 *   program has no subscription).
 * - `wechat_users.rating_asked_at`: when the user was last asked for a score as text; a bare digit 1–5 soon
 *   after is their rating.
 * - `wechat_status.last_error_code` / `last_error_detail`: the channel's last error as a code (and its
 *   detail, such as WeChat's errcode), which the console words in the reader's language.
 */
export function wechatWindow() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('wechat_users').addColumn('last_interaction_at', 'varchar(32)').execute();
      await db.schema
        .alterTable('wechat_users')
        .addColumn('window_sent', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('wechat_users').addColumn('subscribed', 'integer').execute();
      await db.schema.alterTable('wechat_users').addColumn('rating_asked_at', 'varchar(32)').execute();
      await db.schema.alterTable('wechat_status').addColumn('last_error_code', 'varchar(32)').execute();
      await db.schema.alterTable('wechat_status').addColumn('last_error_detail', 'varchar(200)').execute();
    },
  };
}
