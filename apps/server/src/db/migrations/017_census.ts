import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.js';
import { idColumn } from './helpers.js';

/** Milliseconds between two stored ISO times, as each database spells it. */
function msBetween(dialect: DialectName, later: string, earlier: string) {
  return dialect === 'postgres'
    ? sql.raw(`(extract(epoch from (${later})::timestamptz - (${earlier})::timestamptz) * 1000)::bigint`)
    : sql.raw(`cast(round((julianday(${later}) - julianday(${earlier})) * 86400000) as integer)`);
}

/**
 * What the statistics (CONTRACT §9) read without scanning every message: each agent's availability
 * changes (to sum time online, hidden and offline), each transfer, and per conversation its message
 * count and first response, kept as the events happen and filled here from the raw tables. Visitors
 * keep their referrer's host so traffic groups by source without parsing URLs at query time.
 */
export function census(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await idColumn(db.schema.createTable('agent_state_log'), dialect)
        .addColumn('agent_uuid', 'varchar(36)', (c) => c.notNull())
        .addColumn('state', 'varchar(8)', (c) => c.notNull())
        .addColumn('at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('agent_state_log_agent_at').on('agent_state_log').columns(['agent_uuid', 'at']).execute();

      await idColumn(db.schema.createTable('conversation_transfers'), dialect)
        .addColumn('conversation_id', 'integer', (c) => c.notNull().references('conversations.id').onDelete('cascade'))
        .addColumn('from_service_id', 'varchar(36)')
        .addColumn('to_service_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('conversation_transfers_at').on('conversation_transfers').columns(['at', 'from_service_id']).execute();
      await db.schema.createIndex('conversation_transfers_conversation').on('conversation_transfers').column('conversation_id').execute();

      await db.schema
        .alterTable('conversations')
        .addColumn('messages', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('conversations').addColumn('first_response_ms', 'integer').execute();
      await db.schema
        .alterTable('visitors')
        .addColumn('source', 'varchar(255)', (c) => c.notNull().defaultTo(''))
        .execute();

      // The conversation's messages: the visitor's in its seq range (an open one runs to the visitor's last).
      const range = `m.visitor_id = conversations.visitor_id and m.seq >= conversations.first_seq
        and m.seq <= case when conversations.ended_at is null
          then (select v.last_seq from visitors v where v.id = conversations.visitor_id) else conversations.last_seq end`;
      await sql`update conversations set messages = (select count(*) from messages m where ${sql.raw(range)} and m.role <> 'tip')`.execute(
        db,
      );
      const firstUser = `(select min(m.seq) from messages m where ${range} and m.role = 'user')`;
      const userAt = `(select m.created_at from messages m where m.visitor_id = conversations.visitor_id and m.seq = ${firstUser})`;
      const answerAt = `(select min(m.created_at) from messages m where ${range} and m.role = 'service' and m.seq > ${firstUser})`;
      await sql`update conversations set first_response_ms = ${msBetween(dialect, answerAt, userAt)}`.execute(db);

      // The host is read with the URL parser, as at a visitor's arrival; a few rows at a time.
      let after = 0;
      for (;;) {
        const { rows } = await sql<{ id: number; referrer: string }>`select id, referrer from visitors
          where id > ${after} and referrer <> '' order by id limit 500`.execute(db);
        for (const row of rows) {
          let host = '';
          try {
            host = new URL(row.referrer).host;
          } catch {
            // An unreadable referrer names no source.
          }
          if (host) await sql`update visitors set source = ${host.slice(0, 255)} where id = ${row.id}`.execute(db);
        }
        const last = rows[rows.length - 1];
        if (!last) break;
        after = last.id;
      }

      // Traffic counts visits by day; the agent pages read conversations by agent and day.
      await db.schema.createIndex('visits_created').on('visits').columns(['created_at', 'visitor_id']).execute();
    },
  };
}
