import type { ExpressionBuilder, Insertable, UpdateObject } from 'kysely';
import type { Db, DbOrTx } from '../../db/index.js';
import { prepared } from '../../db/prepared.js';
import { type Database, MESSAGE_PATH_COLUMNS, type MessagePathVisitor, type VisitorRow, type VisitorsTable } from '../../db/schema.js';

/** Which side's counter a new message moves: 'umsg' (the visitor's, also unread), 'smsg' (agents'), or none (tips). */
export type MessageCounter = 'umsg' | 'smsg' | null;

/** A visitor with no contact details, no conversation and nothing counted yet: how every new row starts. */
export const UNTOUCHED_VISITOR = {
  name: '',
  phone: '',
  email: '',
  state: 'end',
  service_id: null,
  online: 0,
  unread: 0,
  umsg: 0,
  smsg: 0,
  last_seq: 0,
  wait_since: null,
} as const;

/** A new message's seq, and its side's counter. */
function nextSeq(counter: MessageCounter) {
  return (eb: ExpressionBuilder<Database, 'visitors'>): UpdateObject<Database, 'visitors'> => ({
    last_seq: eb('last_seq', '+', 1),
    ...(counter === 'umsg' ? { umsg: eb('umsg', '+', 1), unread: eb('unread', '+', 1) } : {}),
    ...(counter === 'smsg' ? { smsg: eb('smsg', '+', 1) } : {}),
  });
}

// The hot path's two statements, compiled once (see prepared).
const takeVisitorSeq = prepared((db, v: { tokenHash: string }) =>
  db
    .updateTable('visitors')
    .set(nextSeq('umsg'))
    .where('token_hash', '=', v.tokenHash)
    .where('state', '<>', 'end')
    .returning([...MESSAGE_PATH_COLUMNS]),
);
const takeAgentSeq = prepared((db, v: { publicId: string; agentUuid: string }) =>
  db
    .updateTable('visitors')
    .set((eb) => ({ ...nextSeq('smsg')(eb), unread: 0 }))
    .where('public_id', '=', v.publicId)
    .where('state', '=', 'current')
    .where('service_id', '=', v.agentUuid)
    .returningAll(),
);

/** Visitor states with a conversation going on: with the robot, queued, with a person. */
const ENGAGED = ['robot', 'wait', 'current'];
/** Visitors only browsing that the workbench lists at most, the newest first. */
const BROWSING_LISTED = 1000;

/** SQL of visitors (with their conversation state and message counters) and of the pages they visit. */
export class VisitorRepository {
  constructor(readonly db: Db) {}

  /** The visitor API's lookup: by the hash of the credential. */
  findByTokenHash(db: DbOrTx, tokenHash: string) {
    return db.selectFrom('visitors').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  /** The agents' lookup: by the public id. */
  findByPublicId(db: DbOrTx, publicId: string) {
    return db.selectFrom('visitors').selectAll().where('public_id', '=', publicId).executeTakeFirst();
  }

  /** The region codes of the visitors with these public ids (in chunks, so a busy process stays in the bind limits). */
  async regionCodes(db: DbOrTx, publicIds: readonly string[]): Promise<{ public_id: string; region_code: string }[]> {
    const rows: { public_id: string; region_code: string }[] = [];
    for (let start = 0; start < publicIds.length; start += 500) {
      const chunk = publicIds.slice(start, start + 500);
      rows.push(...(await db.selectFrom('visitors').select(['public_id', 'region_code']).where('public_id', 'in', chunk).execute()));
    }
    return rows;
  }

  /** The GB/T 2260 code of the visitor's region ('' when unknown or no such visitor). */
  async regionCodeOf(db: DbOrTx, id: number): Promise<string> {
    const row = await db.selectFrom('visitors').select('region_code').where('id', '=', id).executeTakeFirst();
    return row?.region_code ?? '';
  }

  findById(db: DbOrTx, id: number) {
    return db.selectFrom('visitors').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insert(db: DbOrTx, row: Insertable<VisitorsTable>): Promise<VisitorRow> {
    return db.insertInto('visitors').values(row).returningAll().executeTakeFirstOrThrow();
  }

  async update(db: DbOrTx, id: number, changes: Partial<Omit<VisitorRow, 'id' | 'token_hash' | 'public_id'>>): Promise<void> {
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

  /**
   * Takes the visitor's next message seq and moves its side's counter. Must run inside a transaction: the
   * update locks the visitor's row, so seqs are gap-free and in commit order.
   */
  async takeSeq(tx: DbOrTx, id: number, counter: MessageCounter): Promise<number> {
    const bumped = await tx
      .updateTable('visitors')
      .set(nextSeq(counter))
      .where('id', '=', id)
      .returning('last_seq')
      .executeTakeFirstOrThrow();
    return bumped.last_seq;
  }

  /**
   * The hot path of a visitor's message, in one statement: a visitor with an open conversation gets
   * its next seq and its counters bumped, and comes back as far as the message's path reads it
   * (MessagePathVisitor: its whole row cost the statement most of its time). Undefined when the credential is unknown
   * or no conversation is open (the caller then opens one first). Inside a transaction, like takeSeq.
   */
  async takeSeqInConversation(tx: DbOrTx, tokenHash: string): Promise<MessagePathVisitor | undefined> {
    return (await takeVisitorSeq(tx, { tokenHash }))[0];
  }

  /**
   * The hot path of an agent's message, in one statement: the visitor, if its conversation is this
   * agent's, gets its next seq, its agent counter bumped and its unread count cleared, and comes back
   * whole. Undefined when the visitor is unknown or the conversation is not this agent's.
   */
  async takeSeqForAgent(tx: DbOrTx, publicId: string, agentUuid: string): Promise<VisitorRow | undefined> {
    return (await takeAgentSeq(tx, { publicId, agentUuid }))[0];
  }

  async insertVisit(db: DbOrTx, visitorId: number, url: string, title: string, at: string): Promise<void> {
    await db.insertInto('visits').values({ visitor_id: visitorId, url, title, created_at: at }).execute();
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

  /**
   * The workbench's visitors: every conversation going on (with a person, queued or with the robot) that
   * `sees` lets through, then the newest BROWSING_LISTED visitors only browsing. A busy site's thousands
   * of browsers must not push an agent's own conversations, or the queue, off the list.
   */
  async listActive(sees: { agent?: string | undefined } = {}) {
    const engaged = this.db.selectFrom('visitors').selectAll().where('state', 'in', ENGAGED).orderBy('last_seen_at', 'desc');
    const { agent } = sees;
    const [talking, browsing] = await Promise.all([
      (agent === undefined
        ? engaged
        : engaged.where((eb) => eb.or([eb('state', '<>', 'current'), eb('service_id', '=', agent)]))
      ).execute(),
      this.db
        .selectFrom('visitors')
        .selectAll()
        .where('online', '=', 1)
        .where('state', 'not in', ENGAGED)
        .orderBy('last_seen_at', 'desc')
        .limit(BROWSING_LISTED)
        .execute(),
    ]);
    return [...talking, ...browsing];
  }

  /** The queue, oldest first. */
  waiting(db: DbOrTx) {
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

  /** On a start without other processes, nobody's socket survived the previous run. */
  async markAllOffline(): Promise<void> {
    await this.db.updateTable('visitors').set({ online: 0 }).where('online', '=', 1).execute();
  }
}
