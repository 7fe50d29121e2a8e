import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/**
 * Account security (CONTRACT §15): two-factor sign-in, the list of one's sessions, a per-account delay
 * after failures from many addresses, and stored notices.
 *
 * - agents: where account notices are mailed (`email`, '' for none); whether the stored password is older
 *   than the length rule and must be changed; the TOTP seed (sealed, never clear) once enabled, the one
 *   being set up until it is confirmed, and the last time step used, so that a code is never taken twice.
 * - sessions: the address and browser of the sign-in, and when the session was last used (written at most
 *   once a minute, not on every request).
 * - login_attempts: until when a key's next attempt waits (the per-account delay); null while none.
 * - mfa_recovery_codes: one-time codes (SHA-256 of 80 random bits each), `used_at` set once taken.
 * - mfa_tickets: what a correct password earns while the code is still to come: short-lived, single use.
 * - notices: messages for one agent (`agent_id`) or for every Admin (`audience` 'admins'), shown in the
 *   console's notice list; `kind` names its text, rendered with `params` in the reader's language.
 */
export function accountSecurity(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('agents')
        .addColumn('email', 'varchar(320)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('agents')
        .addColumn('password_change_required', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('agents')
        .addColumn('mfa_enabled', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('agents').addColumn('mfa_secret', 'text').execute();
      await db.schema.alterTable('agents').addColumn('mfa_pending_secret', 'text').execute();
      await db.schema.alterTable('agents').addColumn('mfa_last_step', 'integer').execute();

      await db.schema
        .alterTable('sessions')
        .addColumn('ip', 'varchar(64)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema
        .alterTable('sessions')
        .addColumn('user_agent', 'varchar(512)', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.alterTable('sessions').addColumn('last_used_at', 'varchar(32)').execute();

      await db.schema.alterTable('login_attempts').addColumn('blocked_until', 'varchar(32)').execute();

      await idColumn(db.schema.createTable('mfa_recovery_codes'), dialect)
        .addColumn('agent_id', 'integer', (c) => c.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('used_at', 'varchar(32)')
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('mfa_recovery_codes_agent').on('mfa_recovery_codes').columns(['agent_id', 'code_hash']).execute();

      await db.schema
        .createTable('mfa_tickets')
        .addColumn('ticket_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('agent_id', 'integer', (c) => c.notNull().references('agents.id').onDelete('cascade'))
        .addColumn('ip', 'varchar(64)', (c) => c.notNull())
        .addColumn('user_agent', 'varchar(512)', (c) => c.notNull())
        .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('used', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('mfa_tickets_expires').on('mfa_tickets').column('expires_at').execute();

      await idColumn(db.schema.createTable('notices'), dialect)
        .addColumn('agent_id', 'integer', (c) => c.references('agents.id').onDelete('cascade'))
        .addColumn('audience', 'varchar(16)', (c) => c.notNull())
        .addColumn('kind', 'varchar(32)', (c) => c.notNull())
        .addColumn('params', 'text', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('notices_agent_time').on('notices').columns(['agent_id', 'created_at']).execute();
      await db.schema.createIndex('notices_audience_time').on('notices').columns(['audience', 'created_at']).execute();
    },
  };
}
