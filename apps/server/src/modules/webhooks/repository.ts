import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import { v7 as uuidV7 } from 'uuid';
import type { DialectName } from '../../db/dialect.js';
import type { Db, DbOrTx } from '../../db/index.js';
import { prepared } from '../../db/prepared.js';
import type { WebhookDeliveriesTable, WebhookEventsTable, WebhooksTable } from '../../db/schema.js';
import { sharedLog, type WebhookLog } from './log-store.js';
import { firstTakenAfter, spansAfter, spansOf } from './message-spans.js';
import { type TakenEvent, type ToldMessage, taken, toldInOrder } from './told-in-order.js';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

/** Delivery rows one statement writes (14 values each): well within both databases' parameter limits. */
const INSERT_CHUNK = 500;
/** The PostgreSQL advisory lock ('pwe1') that lets one process at a time turn queued events into deliveries. */
const EVENTS_LOCK = 0x70776531;

/**
 * A delivery's id (`Parley-Delivery`): a UUID whose first part is the time it is made (version 7), so that
 * the log's index of ids grows at its end. Random ones each went to a page of their own in a large index,
 * and a commit wrote every page it touched.
 */
export const deliveryId = (): string => uuidV7();

/** A delivery of an event to one webhook, due at `at`, not yet attempted. */
export function newDelivery(delivery: {
  uuid: string;
  webhookId: number;
  eventId: string;
  event: string;
  orderKey: string | null;
  source: string | null;
  body: string;
  at: string;
}): Insertable<WebhookDeliveriesTable> {
  return {
    uuid: delivery.uuid,
    webhook_id: delivery.webhookId,
    event_id: delivery.eventId,
    event: delivery.event,
    order_key: delivery.orderKey,
    source: delivery.source,
    body: delivery.body,
    status: 'pending',
    created_at: delivery.at,
    next_at: delivery.at,
    last_attempt_at: null,
    response_code: null,
    error: null,
    claimed_until: null,
  };
}

/** The newest message's id (0 before the first): the mark that orders webhook events against messages. */
const NEWEST_MESSAGE = sql<number>`(select coalesce(max(id), 0) from messages)`;

type NewEvent = Omit<Insertable<WebhookEventsTable>, 'id' | 'messages_mark'>;

/** A queued event's values, each named: `prepared` builds the statement from stand-ins for them. */
const eventValues = (v: NewEvent): NewEvent => ({
  event_id: v.event_id,
  event: v.event,
  order_key: v.order_key,
  source: v.source,
  body: v.body,
  webhook_ids: v.webhook_ids,
  created_at: v.created_at,
});
// The message path's statement when webhooks take its events, compiled once (see prepared).
const insertEvent = prepared((db, v: NewEvent) => db.insertInto('webhook_events').values(eventValues(v)));
/** The same, marked with the newest message, where the messages table tells `message.created` (SQLite). */
const insertMarkedEvent = prepared((db, v: NewEvent) =>
  db.insertInto('webhook_events').values({ ...eventValues(v), messages_mark: NEWEST_MESSAGE }),
);

/**
 * One delivery, compiled once: on SQLite a look's deliveries are written one statement each, run directly
 * on the connection its transaction holds, which costs less than building a statement of 200 rows.
 */
const insertDelivery = prepared((db, v: Insertable<WebhookDeliveriesTable>) =>
  db
    .insertInto('webhook_deliveries')
    .values({
      uuid: v.uuid,
      webhook_id: v.webhook_id,
      event_id: v.event_id,
      event: v.event,
      order_key: v.order_key,
      source: v.source,
      body: v.body,
      status: v.status,
      created_at: v.created_at,
      next_at: v.next_at,
      last_attempt_at: v.last_attempt_at,
      response_code: v.response_code,
      error: v.error,
      claimed_until: v.claimed_until,
    })
    .onConflict((oc) => oc.columns(['webhook_id', 'source']).doNothing()),
);

/**
 * One delivery's successful attempt, compiled once: on SQLite a statement per delivery run on the
 * transaction's connection costs less than building one with all of a commit's ids (a new text each time).
 */
const markDelivered = prepared((db, v: { id: number; responseCode: number; at: string }) =>
  db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      attempts: eb('attempts', '+', 1),
      response_code: v.responseCode,
      error: null,
      last_attempt_at: v.at,
      claimed_until: null,
      status: 'delivered',
      next_at: null,
    }))
    .where('id', '=', v.id),
);

/** Queued events a pruning statement deletes at most: each is a short hold of SQLite's one writer. */
const PRUNE_EVENTS_CHUNK = 200;

/** The webhooks a look may send to: the enabled ones, and (for a `ping`) any that exists. */
export interface Receivers {
  enabled: number[];
  existing: number[];
  rows: WebhookRow[];
}

/**
 * Webhooks' and their deliveries' rows; SQL only. The webhooks and the queued events are in the database
 * (`db`); the deliveries in the log (`log`), which on SQLite is a database of its own (see log-store.ts).
 */
export class WebhookRepository {
  constructor(
    private readonly db: Db,
    private readonly dialect: DialectName,
    readonly log: WebhookLog = sharedLog(db),
  ) {}

  /** The database the webhooks and the queued events are in (the log may be apart from it). */
  get main(): Db {
    return this.db;
  }

  list() {
    return this.db.selectFrom('webhooks').selectAll().orderBy('id', 'desc').execute();
  }

  find(db: DbOrTx, id: number) {
    return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The enabled webhooks, each with the events it takes (JSON). */
  enabled(db: DbOrTx = this.db) {
    return db.selectFrom('webhooks').select(['id', 'events', 'created_at']).where('enabled', '=', 1).execute();
  }

  async count(tx: DbOrTx): Promise<number> {
    const row = await tx
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insert(tx: DbOrTx, row: Insertable<WebhooksTable>): Promise<number> {
    return (await tx.insertInto('webhooks').values(row).returning('id').executeTakeFirstOrThrow()).id;
  }

  async update(tx: DbOrTx, id: number, changes: Updateable<WebhooksTable>): Promise<void> {
    await tx.updateTable('webhooks').set(changes).where('id', '=', id).execute();
  }

  /**
   * Deletes the webhooks among `ids`, with their deliveries when those are in the same database; answers
   * the rows deleted. A log apart is cleared by `dropDeliveries` once this has committed (a delivery left
   * by a crash between the two is of no webhook, and is never sent).
   */
  async delete(tx: DbOrTx, ids: number[]) {
    const rows = await tx.selectFrom('webhooks').select(['id', 'url']).where('id', 'in', ids).execute();
    if (rows.length === 0) return rows;
    const found = rows.map((row) => row.id);
    if (!this.log.apart) await tx.deleteFrom('webhook_deliveries').where('webhook_id', 'in', found).execute();
    await tx.deleteFrom('webhooks').where('id', 'in', found).execute();
    return rows;
  }

  /** Deletes the deliveries of deleted webhooks from a log apart (see delete). */
  async dropDeliveries(ids: number[]): Promise<void> {
    if (this.log.apart && ids.length > 0) await this.log.db.deleteFrom('webhook_deliveries').where('webhook_id', 'in', ids).execute();
  }

  /** Inserts deliveries (in `tx`, a transaction of the log); one whose webhook already has a delivery of the same `source` is left out. */
  async insertDeliveries(rows: Insertable<WebhookDeliveriesTable>[], tx: DbOrTx = this.log.db): Promise<void> {
    if (this.dialect === 'sqlite') {
      for (const row of rows) await insertDelivery(tx, row);
      return;
    }
    // On PostgreSQL a statement is a round trip: many rows each.
    for (let start = 0; start < rows.length; start += INSERT_CHUNK)
      await tx
        .insertInto('webhook_deliveries')
        .values(rows.slice(start, start + INSERT_CHUNK))
        .onConflict((oc) => oc.columns(['webhook_id', 'source']).doNothing())
        .execute();
  }

  /**
   * Whether the messages table is the outbox of `message.created`, so that a message's transaction writes
   * nothing for webhooks: with the log apart, that is SQLite, whose one writer makes message ids follow the
   * commits (and AUTOINCREMENT never gives one again), so reading past a point misses none. On PostgreSQL
   * ids are taken before commits and may commit out of order: each message is queued (see the publisher).
   */
  get messagesTold(): boolean {
    return this.log.apart;
  }

  /** Queues an event for the webhooks that take it: one row, in the transaction of the change. */
  async queueEvent(tx: DbOrTx, row: NewEvent): Promise<void> {
    await (this.messagesTold ? insertMarkedEvent : insertEvent)(tx, row);
  }

  /**
   * A webhook's spans of messages taken (message-spans.ts) once a change that makes it take them or not
   * commits in `tx`: the column to set, or nothing when they stay as they are.
   */
  async spansChange(tx: DbOrTx, stored: string | null, taking: boolean): Promise<{ message_spans?: string }> {
    const spans = spansAfter(stored, taking, await this.newestMessage(tx));
    return spans === undefined ? {} : { message_spans: spans };
  }

  /** The newest message's id now, in `tx`: where a webhook's span of messages taken begins or ends. */
  private async newestMessage(tx: DbOrTx): Promise<number> {
    const row = await tx
      .selectFrom('messages')
      .select((eb) => eb.fn.max('id').as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** How far a log apart has read the events and the messages (every one up to these ids has its deliveries). */
  private async progress(db: DbOrTx = this.log.db): Promise<{ events: number; messages: number }> {
    const rows = await db.selectFrom('webhook_progress').select(['name', 'value']).execute();
    const of = (name: string) => rows.find((row) => row.name === name)?.value ?? 0;
    return { events: of('events'), messages: of('messages') };
  }

  private async moveProgress(tx: DbOrTx, name: 'events' | 'messages', value: number): Promise<void> {
    await tx
      .insertInto('webhook_progress')
      .values({ name, value })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
      .execute();
  }

  /** Whether any event (or, told by the table, any message) waits to be made into deliveries: a look at the first. */
  async anyQueued(): Promise<boolean> {
    if (!this.log.apart) return (await this.db.selectFrom('webhook_events').select('id').limit(1).executeTakeFirst()) !== undefined;
    const read = await this.progress();
    const event = await this.db.selectFrom('webhook_events').select('id').where('id', '>', read.events).limit(1).executeTakeFirst();
    if (event) return true;
    return (await this.db.selectFrom('messages').select('id').where('id', '>', read.messages).limit(1).executeTakeFirst()) !== undefined;
  }

  /**
   * Takes the oldest queued events, at most `limit`, inside `tx` (a transaction of the log, which the
   * deliveries made of them are written in), with the webhooks there are now (read after the events, so a
   * webhook made meanwhile is among them). On PostgreSQL the transaction first waits for any other process
   * doing the same, so that deliveries are made in the events' order (their ids keep one conversation's
   * events in order) and no event is taken twice; the events taken are deleted. With a log apart see
   * takeTold.
   */
  async takeQueue(tx: DbOrTx, limit: number): Promise<{ events: TakenEvent[]; receivers: Receivers }> {
    if (this.log.apart) return this.takeTold(tx, limit);
    if (this.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${EVENTS_LOCK})`.execute(tx);
    const rows = await tx.selectFrom('webhook_events').selectAll().orderBy('id').limit(limit).execute();
    if (rows.length > 0)
      await tx
        .deleteFrom('webhook_events')
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
    return { events: rows.map(taken), receivers: await this.receivers(tx) };
  }

  /**
   * A log apart (SQLite, one process, ids following the commits) reads two queues past the points it keeps,
   * and moves those on in `tx`, the transaction that writes their deliveries (so each becomes deliveries
   * once): the queued events (`pruneTakenEvents` deletes them later), and the messages table itself for
   * `message.created`. Both are read in one snapshot with the webhooks. They are told in the order they
   * committed: an event after the messages up to its mark, before the next; when either read is cut by
   * `limit`, what lies past its last row waits for the next look. A message goes to the webhooks that took
   * `message.created` when it was stored (message-spans.ts); tips are not told.
   */
  private async takeTold(tx: DbOrTx, limit: number): Promise<{ events: TakenEvent[]; receivers: Receivers }> {
    const read = await this.progress(tx);
    const { receivers, takers, events, messages, newest, from } = await this.db.transaction().execute(async (snapshot) => {
      const receivers = await this.receivers(snapshot);
      // Every webhook that took messages, enabled now or not: one disabled since keeps what it took before
      // (pending until it is enabled again, as its other deliveries).
      const takers = receivers.rows.map((row) => ({ id: row.id, spans: spansOf(row.message_spans) }));
      const starts = takers.map(({ spans }) => firstTakenAfter(spans, read.messages)).filter((at) => at !== undefined);
      // Messages no span takes past what was read go to no webhook: the read starts past them.
      const from = Math.max(read.messages, starts.length > 0 ? Math.min(...starts) : 0);
      const events = await snapshot
        .selectFrom('webhook_events')
        .selectAll()
        .where('id', '>', read.events)
        .orderBy('id')
        .limit(limit)
        .execute();
      const messages: ToldMessage[] =
        starts.length === 0
          ? []
          : await snapshot
              .selectFrom('messages as m')
              .innerJoin('visitors as v', 'v.id', 'm.visitor_id')
              .select(['m.id', 'm.created_at', 'v.public_id'])
              .where('m.id', '>', from)
              .where('m.role', '!=', 'tip')
              .orderBy('m.id')
              .limit(limit)
              .execute();
      return { receivers, takers, events, messages, newest: await this.newestMessage(snapshot), from };
    });
    const { told, lastEvent, messagesUpTo } = toldInOrder(events, messages, takers, limit, newest);
    if (lastEvent !== undefined) await this.moveProgress(tx, 'events', lastEvent);
    const messagesRead = Math.max(from, messagesUpTo);
    if (messagesRead > read.messages) await this.moveProgress(tx, 'messages', messagesRead);
    return { events: told, receivers };
  }

  /**
   * Deletes, from the database, queued events a log apart has made into deliveries: a few hundred rows a
   * statement (each a short hold of SQLite's writer), `pause` between two. Answers how many went.
   */
  async pruneTakenEvents(pause: () => Promise<void>): Promise<number> {
    if (!this.log.apart) return 0;
    const read = (await this.progress()).events;
    let pruned = 0;
    for (;;) {
      const first = await this.db.selectFrom('webhook_events').select('id').orderBy('id').limit(1).executeTakeFirst();
      if (!first || first.id > read) return pruned;
      const upTo = Math.min(read, first.id + PRUNE_EVENTS_CHUNK - 1);
      const result = await this.db.deleteFrom('webhook_events').where('id', '<=', upTo).executeTakeFirst();
      pruned += Number(result.numDeletedRows);
      await pause();
    }
  }

  findDelivery(uuid: string) {
    return this.log.db.selectFrom('webhook_deliveries').selectAll().where('uuid', '=', uuid).executeTakeFirst();
  }

  async deliveriesOf(webhookId: number, offset: number, limit: number) {
    const list = await this.log.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .orderBy('id', 'desc')
      .offset(offset)
      .limit(limit)
      .execute();
    const total = await this.log.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('webhook_id', '=', webhookId)
      .executeTakeFirstOrThrow();
    return { list, total: Number(total.n) };
  }

  /**
   * Deliveries that may go now: pending, due, unclaimed (or their claim ran out), of an enabled webhook
   * (a `ping` goes to a disabled one too: it is how one checks a receiver before enabling it again), and
   * with no earlier delivery of the same webhook and conversation still pending; the oldest `limit`, none
   * to the webhooks in `exceptWebhooks` (those with no room for more attempts now).
   */
  async due(now: string, limit: number, exceptWebhooks: number[], receivers: Receivers) {
    if (receivers.existing.length === 0) return [];
    return this.dueQuery(now, exceptWebhooks, receivers).select(['d.id', 'd.webhook_id']).orderBy('d.id').limit(limit).execute();
  }

  /** The same deliveries as `due`, whole: what the sole sender of a log apart attempts without claiming them. */
  async dueWhole(now: string, limit: number, exceptWebhooks: number[], receivers: Receivers): Promise<DeliveryRow[]> {
    if (receivers.existing.length === 0) return [];
    return this.dueQuery(now, exceptWebhooks, receivers).selectAll('d').orderBy('d.id').limit(limit).execute();
  }

  private dueQuery(now: string, exceptWebhooks: number[], receivers: Receivers) {
    let query = this.log.db
      .selectFrom('webhook_deliveries as d')
      .where('d.status', '=', 'pending')
      .where('d.next_at', '<=', now)
      .where((eb) =>
        eb.or([
          ...(receivers.enabled.length > 0 ? [eb('d.webhook_id', 'in', receivers.enabled)] : []),
          eb.and([eb('d.event', '=', 'ping'), eb('d.webhook_id', 'in', receivers.existing)]),
        ]),
      )
      .where((eb) => eb.or([eb('d.claimed_until', 'is', null), eb('d.claimed_until', '<', now)]))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('webhook_deliveries as e')
              .select('e.id')
              .whereRef('e.webhook_id', '=', 'd.webhook_id')
              .whereRef('e.order_key', '=', 'd.order_key')
              // A literal, so that the index of pending deliveries (migration 038) answers it.
              .where('e.status', '=', sql.lit('pending'))
              .whereRef('e.id', '<', 'd.id'),
          ),
        ),
      );
    if (exceptWebhooks.length > 0) query = query.where('d.webhook_id', 'not in', exceptWebhooks);
    return query;
  }

  /**
   * Whether this server's delivery process is the only one that sends from the log, so that it needs no
   * claims: a log apart is SQLite's, beside one server's database, and only its delivery process changes a
   * delivery there (the console adds new ones, and deletes a deleted webhook's). It keeps the attempts it
   * has under way in memory instead; a thread that ends takes them with it, and they are due again.
   */
  get soleSender(): boolean {
    return this.log.apart;
  }

  /**
   * Takes due deliveries for this process until `until`, those another process did not take first: the
   * conditional update succeeds for one of them, on SQLite and PostgreSQL alike, and answers the rows this
   * one took. A process that dies holding them frees them when the claim runs out.
   */
  claim(ids: number[], now: string, until: string): Promise<DeliveryRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.log.db
      .updateTable('webhook_deliveries')
      .set({ claimed_until: until })
      .where('id', 'in', ids)
      .where('status', '=', 'pending')
      .where('next_at', '<=', now)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .returningAll()
      .execute();
  }

  /** The webhooks a look may send to (see due), read whole once for the look. */
  async receivers(db: DbOrTx = this.db): Promise<Receivers> {
    const rows = await db.selectFrom('webhooks').selectAll().execute();
    return { enabled: rows.filter((row) => row.enabled === 1).map((row) => row.id), existing: rows.map((row) => row.id), rows };
  }

  /**
   * Forgets the deliveries that went out (or were given up) before `before`, and in a log apart those of
   * webhooks deleted (left by a crash between the two deletions) from before it too: a webhook made since
   * `existing` was read may already have recent deliveries.
   */
  async prune(before: string, existing: number[]): Promise<void> {
    await this.log.db
      .deleteFrom('webhook_deliveries')
      .where('status', 'in', ['delivered', 'failed'])
      .where('created_at', '<', before)
      .execute();
    if (this.log.apart) {
      let orphans = this.log.db.deleteFrom('webhook_deliveries').where('created_at', '<', before);
      if (existing.length > 0) orphans = orphans.where('webhook_id', 'not in', existing);
      await orphans.execute();
    }
  }

  async recordAttempt(tx: DbOrTx, id: number, changes: Updateable<WebhookDeliveriesTable>): Promise<void> {
    await tx.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute();
  }

  /** Records the attempt that delivered each of `ids`, all answered with `responseCode`, in `tx` (a transaction of the log). */
  async delivered(tx: DbOrTx, ids: number[], responseCode: number, at: string): Promise<void> {
    if (this.dialect === 'sqlite') {
      for (const id of ids) await markDelivered(tx, { id, responseCode, at });
      return;
    }
    // On PostgreSQL a statement is a round trip: one for them all.
    await tx
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        response_code: responseCode,
        error: null,
        last_attempt_at: at,
        claimed_until: null,
        status: 'delivered',
        next_at: null,
      }))
      .where('id', 'in', ids)
      .execute();
  }

  /** Counts `count` failed attempts against the webhook; answers the failures in a row now. */
  async failed(tx: DbOrTx, webhookId: number, count = 1): Promise<number> {
    await tx
      .updateTable('webhooks')
      .set((eb) => ({ failures: eb('failures', '+', count) }))
      .where('id', '=', webhookId)
      .execute();
    const row = await tx.selectFrom('webhooks').select('failures').where('id', '=', webhookId).executeTakeFirst();
    return row?.failures ?? 0;
  }

  async succeeded(tx: DbOrTx, webhookId: number): Promise<void> {
    await tx.updateTable('webhooks').set({ failures: 0 }).where('id', '=', webhookId).where('failures', '>', 0).execute();
  }

  /** Disables the webhook unless it already is; true for the one call that disabled it. */
  async disable(tx: DbOrTx, webhookId: number, at: string): Promise<boolean> {
    const row = await tx
      .selectFrom('webhooks')
      .select('message_spans')
      .where('id', '=', webhookId)
      .where('enabled', '=', 1)
      .executeTakeFirst();
    if (!row) return false;
    const result = await tx
      .updateTable('webhooks')
      .set({ enabled: 0, updated_at: at, ...(await this.spansChange(tx, row.message_spans, false)) })
      .where('id', '=', webhookId)
      .where('enabled', '=', 1)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
