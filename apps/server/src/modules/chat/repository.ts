import type { ExpressionBuilder, Selectable, UpdateObject } from 'kysely';
import type { Db, DbOrTx } from '../../db/index.js';
import { consoleOpen } from '../../db/presence.js';
import type { Database, MessagesTable, VisitorsTable } from '../../db/schema.js';

export type VisitorRow = Selectable<VisitorsTable>;
export type MessageRow = Selectable<MessagesTable>;

export type NewMessage = Omit<MessageRow, 'id' | 'seq' | 'visitor_id' | 'withdrawn'>;

/** A new message's seq, and its side's counter: 'umsg' (the visitor's, also unread) or 'smsg' (agents'). */
function nextSeq(counter: 'umsg' | 'smsg' | null) {
  return (eb: ExpressionBuilder<Database, 'visitors'>): UpdateObject<Database, 'visitors'> => ({
    last_seq: eb('last_seq', '+', 1),
    ...(counter === 'umsg' ? { umsg: eb('umsg', '+', 1), unread: eb('unread', '+', 1) } : {}),
    ...(counter === 'smsg' ? { smsg: eb('smsg', '+', 1) } : {}),
  });
}

/** SQL of visitors, messages, visits, conversations, monitors and leave-messages. */
export class ChatRepository {
  constructor(readonly db: Db) {}

  /** The visitor API's lookup: by the hash of the credential. */
  findVisitorByTokenHash(db: DbOrTx, tokenHash: string) {
    return db.selectFrom('visitors').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** The agents' lookup: by the public id. */
  findVisitorByPublicId(db: DbOrTx, publicId: string) {
    return db.selectFrom('visitors').selectAll().where('public_id', '=', publicId).executeTakeFirst();
  }

  findVisitorById(db: DbOrTx, id: number) {
    return db.selectFrom('visitors').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insertVisitor(db: DbOrTx, row: Omit<VisitorRow, 'id'>): Promise<VisitorRow> {
    return db.insertInto('visitors').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async updateVisitor(db: DbOrTx, id: number, changes: Partial<Omit<VisitorRow, 'id' | 'token_hash' | 'public_id'>>): Promise<void> {
    await db.updateTable('visitors').set(changes).where('id', '=', id).execute();
  }

  /**
   * Moves a visitor from one of `from` states to a new state and agent, only if it is still in one of
   * them: the row update is the lock, so of two racing agents exactly one sees a change.
   */
  async transition(
    db: DbOrTx,
    id: number,
    from: { states: string[]; serviceId?: string | null },
    to: { state: string; service_id: string | null; wait_since?: string | null },
  ): Promise<boolean> {
    let query = db.updateTable('visitors').set(to).where('id', '=', id).where('state', 'in', from.states);
    if (from.serviceId !== undefined) {
      query = from.serviceId === null ? query.where('service_id', 'is', null) : query.where('service_id', '=', from.serviceId);
    }
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  findMessageByOnlyId(db: DbOrTx, visitorId: number, onlyId: string) {
    return db.selectFrom('messages').selectAll().where('visitor_id', '=', visitorId).where('only_id', '=', onlyId).executeTakeFirst();
  }

  /**
   * Stores a message with the visitor's next seq. Must run inside a transaction: the counter update
   * locks the visitor's row, so seqs are gap-free and in commit order.
   */
  async insertMessage(tx: DbOrTx, visitorId: number, message: NewMessage, counter: 'umsg' | 'smsg' | null): Promise<MessageRow> {
    const bumped = await tx
      .updateTable('visitors')
      .set(nextSeq(counter))
      .where('id', '=', visitorId)
      .returning('last_seq')
      .executeTakeFirstOrThrow();
    return this.insertMessageAt(tx, visitorId, bumped.last_seq, message);
  }

  /**
   * The hot path of a visitor's message, in one statement: a visitor with an open conversation gets
   * its next seq and its counters bumped, and comes back whole. Undefined when the credential is unknown
   * or no conversation is open (the caller then opens one first). Inside a transaction, like insertMessage.
   */
  bumpVisitorInConversation(tx: DbOrTx, tokenHash: string): Promise<VisitorRow | undefined> {
    return tx
      .updateTable('visitors')
      .set(nextSeq('umsg'))
      .where('token_hash', '=', tokenHash)
      .where('state', '<>', 'end')
      .returningAll()
      .executeTakeFirst();
  }

  /** Stores a message under a seq already taken from the visitor's counter. */
  insertMessageAt(tx: DbOrTx, visitorId: number, seq: number, message: NewMessage): Promise<MessageRow> {
    return tx
      .insertInto('messages')
      .values({ ...message, visitor_id: visitorId, seq, withdrawn: 0 })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  listMessages(visitorId: number, options: { afterSeq?: number | undefined; beforeSeq?: number | undefined; limit: number }) {
    let query = this.db.selectFrom('messages').selectAll().where('visitor_id', '=', visitorId);
    if (options.afterSeq !== undefined) query = query.where('seq', '>', options.afterSeq);
    if (options.beforeSeq !== undefined) {
      // Scrolling back: the `limit` messages just before beforeSeq, still answered in seq order.
      return query
        .where('seq', '<', options.beforeSeq)
        .orderBy('seq', 'desc')
        .limit(options.limit)
        .execute()
        .then((rows) => rows.reverse());
    }
    if (options.afterSeq === undefined) {
      return query
        .orderBy('seq', 'desc')
        .limit(options.limit)
        .execute()
        .then((rows) => rows.reverse());
    }
    return query.orderBy('seq', 'asc').limit(options.limit).execute();
  }

  async lastMessages(visitorIds: number[]): Promise<Map<number, MessageRow>> {
    if (visitorIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('messages as m')
      .selectAll('m')
      .innerJoin('visitors as v', (join) => join.onRef('v.id', '=', 'm.visitor_id').onRef('v.last_seq', '=', 'm.seq'))
      .where('m.visitor_id', 'in', visitorIds)
      .execute();
    return new Map(rows.map((row) => [row.visitor_id, row]));
  }

  async markWithdrawn(db: DbOrTx, messageId: number): Promise<void> {
    await db.updateTable('messages').set({ withdrawn: 1 }).where('id', '=', messageId).execute();
  }

  async insertVisit(visitorId: number, url: string, title: string, at: string): Promise<void> {
    await this.db.insertInto('visits').values({ visitor_id: visitorId, url, title, created_at: at }).execute();
  }

  listVisits(visitorId: number, limit: number) {
    return this.db
      .selectFrom('visits')
      .select(['url', 'title', 'created_at'])
      .where('visitor_id', '=', visitorId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  async openConversation(db: DbOrTx, visitorId: number, serviceId: string | null, firstSeq: number, at: string): Promise<void> {
    await db
      .insertInto('conversations')
      .values({ visitor_id: visitorId, service_id: serviceId, first_seq: firstSeq, last_seq: firstSeq, comment: '', started_at: at })
      .execute();
  }

  latestConversation(db: DbOrTx, visitorId: number) {
    return db.selectFrom('conversations').selectAll().where('visitor_id', '=', visitorId).orderBy('id', 'desc').limit(1).executeTakeFirst();
  }

  async updateConversation(
    db: DbOrTx,
    id: number,
    changes: Partial<{ service_id: string | null; last_seq: number; ended_at: string; score: number; comment: string }>,
  ): Promise<void> {
    await db.updateTable('conversations').set(changes).where('id', '=', id).execute();
  }

  async addMonitor(visitorId: number, agentUuid: string, at: string): Promise<void> {
    const exists = await this.db
      .selectFrom('monitors')
      .select('id')
      .where('visitor_id', '=', visitorId)
      .where('agent_uuid', '=', agentUuid)
      .executeTakeFirst();
    if (!exists) await this.db.insertInto('monitors').values({ visitor_id: visitorId, agent_uuid: agentUuid, created_at: at }).execute();
  }

  async monitorsOf(visitorId: number): Promise<string[]> {
    const rows = await this.db.selectFrom('monitors').select('agent_uuid').where('visitor_id', '=', visitorId).execute();
    return rows.map((row) => row.agent_uuid);
  }

  /**
   * Whether an agent took part in one of a visitor's conversations: was given one, or spoke in one (a
   * transfer moves the conversation's agent, but the earlier agent's messages and tips keep its uuid).
   */
  async tookPart(db: DbOrTx, visitorId: number, agentUuid: string): Promise<boolean> {
    const given = await db
      .selectFrom('conversations')
      .select('id')
      .where('visitor_id', '=', visitorId)
      .where('service_id', '=', agentUuid)
      .limit(1)
      .executeTakeFirst();
    if (given) return true;
    const spoke = await db
      .selectFrom('messages')
      .select('id')
      .where('visitor_id', '=', visitorId)
      .where('service_id', '=', agentUuid)
      .limit(1)
      .executeTakeFirst();
    return spoke !== undefined;
  }

  async clearMonitors(db: DbOrTx, visitorId: number): Promise<void> {
    await db.deleteFrom('monitors').where('visitor_id', '=', visitorId).execute();
  }

  /** Visitors online now or in an open conversation. */
  listActiveVisitors() {
    return this.db
      .selectFrom('visitors')
      .selectAll()
      .where((eb) => eb.or([eb('online', '=', 1), eb('state', 'in', ['wait', 'current', 'robot'])]))
      .orderBy('last_seen_at', 'desc')
      .limit(1000)
      .execute();
  }

  /** The queue, oldest first. */
  waitingVisitors(db: DbOrTx) {
    return db
      .selectFrom('visitors')
      .select(['id', 'public_id', 'wait_since'])
      .where('state', '=', 'wait')
      .orderBy('wait_since')
      .orderBy('id')
      .execute();
  }

  /** Open conversations per agent uuid. */
  async openLoad(db: DbOrTx): Promise<Map<string, number>> {
    const rows = await db
      .selectFrom('visitors')
      .select((eb) => ['service_id', eb.fn.countAll<number>().as('n')])
      .where('state', '=', 'current')
      .where('service_id', 'is not', null)
      .groupBy('service_id')
      .execute();
    return new Map(rows.map((row) => [row.service_id ?? '', Number(row.n)]));
  }

  /** Agents who may be given a conversation: enabled, online (state '0'), with a console open somewhere. */
  availableAgents(db: DbOrTx, presentSince: string) {
    return db
      .selectFrom('agents')
      .select(['uuid', 'nickname', 'avatar', 'max_chats'])
      .where('disabled', '=', 0)
      .where('state', '=', '0')
      .where((eb) => consoleOpen(eb, presentSince))
      .orderBy('id')
      .execute();
  }

  /** Every enabled agent, with whether a console of theirs is open anywhere. */
  listPeers(presentSince: string) {
    return this.db
      .selectFrom('agents')
      .select((eb) => ['agents.uuid', 'agents.nickname', 'agents.avatar', 'agents.state', consoleOpen(eb, presentSince).as('present')])
      .where('agents.disabled', '=', 0)
      .orderBy('agents.id')
      .execute();
  }

  findAgentByUuid(db: DbOrTx, uuid: string) {
    return db
      .selectFrom('agents')
      .select(['id', 'uuid', 'nickname', 'avatar', 'state', 'disabled', 'max_chats'])
      .where('uuid', '=', uuid)
      .executeTakeFirst();
  }

  async updateAgentState(uuid: string, state: string): Promise<void> {
    await this.db.updateTable('agents').set({ state }).where('uuid', '=', uuid).execute();
  }

  async insertLetter(row: {
    visitor_id: number | null;
    name: string;
    phone: string;
    email: string;
    content: string;
    ip: string;
    created_at: string;
  }): Promise<number> {
    const inserted = await this.db
      .insertInto('letters')
      .values({ ...row, read: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    return inserted.id;
  }

  async unreadLetters(): Promise<{ count: number; latest: string | null }> {
    const row = await this.db
      .selectFrom('letters')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('created_at').as('latest')])
      .where('read', '=', 0)
      .executeTakeFirstOrThrow();
    return { count: Number(row.n), latest: row.latest ?? null };
  }

  /** On a start without other processes, nobody's socket survived the previous run. */
  async markAllOffline(): Promise<void> {
    await this.db.updateTable('visitors').set({ online: 0 }).where('online', '=', 1).execute();
  }
}
