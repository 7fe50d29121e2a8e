import { type Selectable, sql } from 'kysely';
import type { Db } from '../../db/index.js';
import type { ConversationTimersTable } from '../../db/schema.js';

export type TimerKind = 'idle' | 'agentSilent' | 'autoClose';
export type TimerRow = Selectable<ConversationTimersTable>;

/** The time of a timer that fired but stays armed-in-name, so that it is not armed again until cleared. */
const SPENT = '9999-12-31T23:59:59.999Z';
/**
 * The time of an agent-silence timer that waits for the visitor's next message to be armed. Resetting
 * the row to it (rather than deleting it) lets the agent's message re-arm idle and disarm agentSilent
 * in one statement.
 */
export const UNARMED = '9999-12-31T23:59:59.998Z';

/** SQL of the conversations' timers. Times are ISO text, which compares in time order on both databases. */
export class TimerRepository {
  constructor(private readonly db: Db) {}

  /**
   * Arms several timers of one conversation in one statement. Each moves to its new time (a claim on it
   * is dropped: it is a new timer), except agentSilent, which counts from the first unanswered message:
   * an armed or spent one keeps its time unless it is being unarmed (UNARMED).
   */
  async arm(visitorId: number, timers: Partial<Record<TimerKind, string>>): Promise<void> {
    const rows = Object.entries(timers).map(([kind, dueAt]) => ({ visitor_id: visitorId, kind, due_at: dueAt, claimed_until: null }));
    if (rows.length === 0) return;
    const moves = sql<boolean>`(excluded.kind <> 'agentSilent' or conversation_timers.due_at = ${UNARMED} or excluded.due_at = ${UNARMED})`;
    await this.db
      .insertInto('conversation_timers')
      .values(rows)
      .onConflict((conflict) =>
        conflict.columns(['visitor_id', 'kind']).doUpdateSet({
          due_at: sql<string>`case when ${moves} then excluded.due_at else conversation_timers.due_at end`,
          claimed_until: sql<string | null>`case when ${moves} then null else conversation_timers.claimed_until end`,
        }),
      )
      .execute();
  }

  /** Whether the visitor wrote after the agent's last message (tips and the robot's words aside). */
  async visitorSpokeLast(visitorId: number): Promise<boolean> {
    const last = await this.db
      .selectFrom('messages')
      .select('role')
      .where('visitor_id', '=', visitorId)
      .where('role', 'in', ['user', 'service'])
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return last?.role === 'user';
  }

  /** When the visitor last wrote (ISO), if ever. */
  async visitorLastWrote(visitorId: number): Promise<string | undefined> {
    const last = await this.db
      .selectFrom('messages')
      .select('created_at')
      .where('visitor_id', '=', visitorId)
      .where('role', '=', 'user')
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return last?.created_at;
  }

  /**
   * Auto close was switched on or shortened: every conversation with an agent gets its timer due at
   * `dueAt` at the latest (one due later is pulled in; it checks the visitor's last message when due).
   */
  async closeBy(dueAt: string): Promise<void> {
    await this.db
      .updateTable('conversation_timers')
      .set({ due_at: dueAt, claimed_until: null })
      .where('kind', '=', 'autoClose')
      .where('due_at', '>', dueAt)
      .execute();
    await this.db
      .insertInto('conversation_timers')
      .columns(['visitor_id', 'kind', 'due_at', 'claimed_until'])
      .expression((eb) =>
        eb
          .selectFrom('visitors')
          .select((eb) => ['id', eb.val('autoClose').as('kind'), eb.val(dueAt).as('due_at'), sql<null>`null`.as('claimed_until')])
          .where('state', '=', 'current'),
      )
      .onConflict((conflict) => conflict.columns(['visitor_id', 'kind']).doNothing())
      .execute();
  }

  async clear(visitorId: number, kinds: readonly TimerKind[]): Promise<void> {
    await this.db.deleteFrom('conversation_timers').where('visitor_id', '=', visitorId).where('kind', 'in', kinds).execute();
  }

  /** Rows due at `now` that nobody holds, earliest first. */
  due(now: string, limit: number): Promise<TimerRow[]> {
    return this.db
      .selectFrom('conversation_timers')
      .selectAll()
      .where('due_at', '<=', now)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .orderBy('due_at')
      .limit(limit)
      .execute();
  }

  /**
   * Takes a due row for this process until `until`. One conditional update: of several processes that
   * read the same row, exactly one changes it, and only that one acts on it.
   */
  async claim(row: TimerRow, now: string, until: string): Promise<boolean> {
    const result = await this.db
      .updateTable('conversation_timers')
      .set({ claimed_until: until })
      .where('id', '=', row.id)
      .where('due_at', '=', row.due_at)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }

  /**
   * Keeps a timer that was acted on as spent: it never comes due, and setIfAbsent leaves it, until it is
   * cleared (unless it was re-armed meanwhile).
   */
  async spend(row: TimerRow): Promise<void> {
    await this.db
      .updateTable('conversation_timers')
      .set({ due_at: SPENT, claimed_until: null })
      .where('id', '=', row.id)
      .where('due_at', '=', row.due_at)
      .execute();
  }

  /** Removes a timer that was acted on, unless it was re-armed meanwhile (then its new time stands). */
  async done(row: TimerRow): Promise<void> {
    await this.db.deleteFrom('conversation_timers').where('id', '=', row.id).where('due_at', '=', row.due_at).execute();
  }
}
