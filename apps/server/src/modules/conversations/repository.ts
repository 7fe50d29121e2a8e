import { type QueryCreator, sql, type Transaction } from 'kysely';
import type { DialectName } from '../../db/dialect.js';
import type { SharedStep } from '../../db/group-commit.js';
import type { Db, DbOrTx } from '../../db/index.js';
import { prepared, preparedInsert } from '../../db/prepared.js';
import type { Database, MessageRow, VisitorRow } from '../../db/schema.js';

/** A visitor's message stored in its open conversation, and the visitor as that left it. */
export interface VisitorWrote {
  visitor: VisitorRow;
  message: MessageRow;
}

export type NewMessage = Omit<
  MessageRow,
  'id' | 'seq' | 'visitor_id' | 'withdrawn' | 'suggestions' | 'delivery' | 'delivery_error' | 'via'
> & {
  suggestions?: string;
  /** The API token's name, when a program sent it. */
  via?: string;
};

// The hot path's statements, compiled once (see prepared).
function insertMessageValues(db: Db | QueryCreator<Database>, v: NewRow) {
  return db.insertInto('messages').values({
    only_id: v.only_id,
    role: v.role,
    type: v.type,
    msg: v.msg,
    nickname: v.nickname,
    service_id: v.service_id,
    created_at: v.created_at,
    visitor_id: v.visitor_id,
    seq: v.seq,
    withdrawn: 0,
  });
}
const insertMessageQuery = (db: Db | QueryCreator<Database>, v: NewRow) => insertMessageValues(db, v).returningAll();
const insertMessage = prepared(insertMessageQuery);
/** SQLite's: the row answered from the values written (storedRow) instead of read back. */
const insertMessageReturningNothing = preparedInsert(insertMessageValues);

/**
 * The row SQLite stored for `v` under `id`: what `RETURNING *` would have answered, the columns the
 * statement leaves out at their defaults (the statement is used only where compiledFits).
 */
function storedRow(id: number, v: NewRow): MessageRow {
  return { ...v, id, withdrawn: 0, suggestions: '', delivery: null, delivery_error: null, via: null };
}

/** Counts a message in its conversation: the latest that began at or before its seq. */
function countUpdate(db: Db | QueryCreator<Database>, v: { visitorId: number; seq: number }) {
  return db
    .updateTable('conversations')
    .set((eb) => ({ messages: eb('messages', '+', 1) }))
    .where('id', '=', (eb) =>
      eb
        .selectFrom('conversations')
        .select('id')
        .where('visitor_id', '=', v.visitorId)
        .where('first_seq', '<=', v.seq)
        .orderBy('id', 'desc')
        .limit(1),
    );
}
const countQuery = (db: Db | QueryCreator<Database>, v: { visitorId: number; seq: number }) =>
  countUpdate(db, v).returning(['id', 'first_seq', 'first_response_ms']);
const countInConversation = prepared(countQuery);
/** The count alone, where no first answer is to be kept (a visitor's message): nothing to read back. */
const countOnly = prepared(countUpdate);
/** The id of a visitor's conversation now (the last one opened): a webhook's copy of each message names it. */
const latestConversationId = prepared((db, v: { visitorId: number }) =>
  db.selectFrom('conversations').select('id').where('visitor_id', '=', v.visitorId).orderBy('id', 'desc').limit(1),
);

type NewRow = Omit<NewMessage, 'suggestions' | 'via'> & { visitor_id: number; seq: number };

/** Whether the statements compiled once can store this message: none of the rare columns is set. */
const compiledFits = (message: NewMessage) => message.suggestions === undefined && message.via === undefined;

/**
 * PostgreSQL's version of insertMessage + countInConversation: one statement, so one round trip instead
 * of two within the batch (SQLite runs in the process, where a statement costs no round trip).
 */
const insertAndCount = prepared((db, v: NewRow) =>
  db
    .with('m', (db) => insertMessageQuery(db, v))
    // The second CTE's creator also knows `m`; the count reads nothing of it.
    .with('c', (db) => countQuery(db as unknown as QueryCreator<Database>, { visitorId: v.visitor_id, seq: v.seq }))
    .selectFrom('m')
    .leftJoin('c', (join) => join.onTrue())
    .selectAll('m')
    .select(['c.id as counted_id', 'c.first_seq as counted_first_seq', 'c.first_response_ms as counted_first_response_ms']),
);

/**
 * PostgreSQL's visitor messages in conversations under way, a batch of them in one statement (one round
 * trip): each input's visitor takes as many seqs as it has messages here (in their order, as
 * VisitorRepository.takeSeqInConversation takes one), each message is stored under its own, and counted
 * in its conversation. The nickname is visitorNickname's, in SQL. One row per input that was written,
 * with its 1-based place among the inputs (`ord`); a visitor with no open conversation has none of its
 * inputs written (nothing of it changed).
 */
const visitorWritesMany = prepared(
  (_db, v: { tokenHashes: string[]; onlyIds: string[]; types: string[]; msgs: string[]; createdAts: string[] }) =>
    sql<{ ord: string; visitor: VisitorRow; message: MessageRow }>`
    with i as (
      -- The batch's rows through a function PostgreSQL counts as a few (migration 045), so that the
      -- statement is planned once per connection rather than at every run.
      select * from visitor_message_rows(${v.tokenHashes}::text[], ${v.onlyIds}::text[], ${v.types}::text[], ${v.msgs}::text[], ${v.createdAts}::text[]) as i
    ), k as (
      select token_hash, count(*)::int as n from i group by token_hash
    ), v as (
      update visitors set last_seq = visitors.last_seq + k.n, umsg = visitors.umsg + k.n, unread = visitors.unread + k.n
      from k where visitors.token_hash = k.token_hash and visitors.state <> 'end'
      returning visitors.*
    ), n as (
      select i.ord, i.only_id, i.type, i.msg, i.created_at, v.id as visitor_id, v.service_id,
        coalesce(nullif(v.name, ''), 'V' || lpad(v.id::text, greatest(4, length(v.id::text)), '0')) as nickname,
        (v.last_seq - count(*) over (partition by v.id) + row_number() over (partition by v.id order by i.ord))::int as seq
      from i join v on v.token_hash = i.token_hash
    ), m as (
      insert into messages (only_id, role, type, msg, nickname, service_id, created_at, visitor_id, seq, withdrawn)
      select only_id, 'user', type, msg, nickname, service_id, created_at, visitor_id, seq, 0 from n order by ord
      returning *
    ), c as (
      -- Each visitor's conversation found first, then updated by its id: joined on the subquery itself,
      -- the planner would hash all conversations.
      update conversations set messages = conversations.messages + t.n
      from (
        select k.n, (
          select c.id from conversations c where c.visitor_id = k.visitor_id and c.first_seq <= k.s order by c.id desc limit 1
        ) as id
        from (select visitor_id, count(*)::int as n, min(seq) as s from m group by visitor_id) k
      ) t
      where conversations.id = t.id
      returning conversations.id
    )
    select n.ord, row_to_json(v) as visitor, row_to_json(m) as message
    from m join n on n.visitor_id = m.visitor_id and n.seq = m.seq join v on v.id = m.visitor_id`,
);

/** A visitor's message for visitorWrites / visitorWritesMany. */
export interface VisitorWrite {
  tokenHash: string;
  onlyId: string;
  type: string;
  msg: string;
  createdAt: string;
}

interface Counted {
  id: number;
  first_seq: number;
  first_response_ms: number | null;
}

/** SQL of conversations, their messages and the supervisors monitoring them. */
export class ConversationRepository {
  constructor(
    readonly db: Db,
    private readonly dialect: DialectName,
  ) {}

  findMessageByOnlyId(db: DbOrTx, visitorId: number, onlyId: string) {
    return db.selectFrom('messages').selectAll().where('visitor_id', '=', visitorId).where('only_id', '=', onlyId).executeTakeFirst();
  }

  /** Stores a message under a seq already taken from the visitor's counter (VisitorRepository.takeSeq). */
  async insertMessageAt(tx: DbOrTx, visitorId: number, seq: number, message: NewMessage): Promise<MessageRow> {
    // The robot's messages carry suggestions, a program's its token's name; the others, thousands a
    // second, take the statement compiled once.
    if (!compiledFits(message)) {
      return tx
        .insertInto('messages')
        .values({ ...message, visitor_id: visitorId, seq, withdrawn: 0 })
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    const values = { ...message, visitor_id: visitorId, seq };
    if (this.dialect === 'sqlite') return storedRow(await insertMessageReturningNothing(tx, values), values);
    const [row] = await insertMessage(tx, values);
    if (!row) throw new Error('the message was not stored');
    return row;
  }

  /**
   * Stores a message that counts (not a tip) under a seq already taken, and counts it in its
   * conversation, in the same transaction: one statement on PostgreSQL, two on SQLite, and two more for
   * the agent's first answer (`answeredAt`) of the conversation. On SQLite neither statement reads back
   * what it wrote unless the first answer needs it: the row is answered from the values (storedRow).
   */
  async storeMessage(tx: DbOrTx, visitorId: number, seq: number, message: NewMessage, answeredAt: string | null): Promise<MessageRow> {
    if (this.dialect === 'postgres' && compiledFits(message)) {
      const [stored] = await insertAndCount(tx, { ...message, visitor_id: visitorId, seq });
      if (!stored) throw new Error('the message was not stored');
      const { counted_id, counted_first_seq, counted_first_response_ms, ...row } = stored;
      const counted =
        counted_id === null
          ? undefined
          : { id: counted_id, first_seq: counted_first_seq as number, first_response_ms: counted_first_response_ms };
      await this.firstResponse(tx, visitorId, seq, answeredAt, counted);
      return row;
    }
    const row = await this.insertMessageAt(tx, visitorId, seq, message);
    if (answeredAt === null) {
      await countOnly(tx, { visitorId, seq });
      return row;
    }
    const [counted] = await countInConversation(tx, { visitorId, seq });
    await this.firstResponse(tx, visitorId, seq, answeredAt, counted);
    return row;
  }

  /** Whether a visitor's message in a conversation under way is one statement (visitorWrites) here. */
  get visitorWritesAtOnce(): boolean {
    return this.dialect === 'postgres';
  }

  /** One visitor message in one statement (visitorWritesMany's, for a batch of one): PostgreSQL only (visitorWritesAtOnce). */
  async visitorWrites(tx: Transaction<Database>, write: VisitorWrite): Promise<VisitorWrote | undefined> {
    const [wrote] = await this.visitorWritesMany.runMany(tx, [write]);
    return wrote;
  }

  /**
   * A batch's visitor messages in one statement (group commit's shared step, PostgreSQL only): per write
   * what visitorWrites would have answered had they run one after another in this order. Each answer's
   * visitor is as it was just after its own message (its last_seq that message's seq, its counts then).
   */
  readonly visitorWritesMany: SharedStep<VisitorWrite, VisitorWrote> = {
    runMany: async (tx, writes) => {
      const rows = await visitorWritesMany(tx, {
        tokenHashes: writes.map((write) => write.tokenHash),
        onlyIds: writes.map((write) => write.onlyId),
        types: writes.map((write) => write.type),
        msgs: writes.map((write) => write.msg),
        createdAts: writes.map((write) => write.createdAt),
      });
      const answers: (VisitorWrote | undefined)[] = writes.map(() => undefined);
      for (const { ord, visitor, message } of rows) {
        // The row is the visitor after all its messages of the batch; each of them counted one.
        const later = visitor.last_seq - message.seq;
        answers[Number(ord) - 1] = {
          visitor: { ...visitor, last_seq: message.seq, umsg: visitor.umsg - later, unread: visitor.unread - later },
          message,
        };
      }
      return answers;
    },
  };

  /** Keeps the conversation's first response time when `answeredAt` is the agent's first answer in it. */
  private async firstResponse(tx: DbOrTx, visitorId: number, seq: number, answeredAt: string | null, conversation: Counted | undefined) {
    if (!conversation || !answeredAt || conversation.first_response_ms !== null) return;
    const asked = await tx
      .selectFrom('messages')
      .select('created_at')
      .where('visitor_id', '=', visitorId)
      .where('role', '=', 'user')
      .where('seq', '>=', conversation.first_seq)
      .where('seq', '<', seq)
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst();
    if (!asked) return;
    await tx
      .updateTable('conversations')
      .set({ first_response_ms: Math.max(0, Date.parse(answeredAt) - Date.parse(asked.created_at)) })
      .where('id', '=', conversation.id)
      .execute();
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

  /** The visitor's newest `limit` messages, newest first: the robot counts its own misses back from the last. */
  newestFirst(db: DbOrTx, visitorId: number, limit: number) {
    return db
      .selectFrom('messages')
      .select(['role', 'only_id'])
      .where('visitor_id', '=', visitorId)
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
  }

  /** Each visitor's newest message (the one at its last seq). */
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

  async open(db: DbOrTx, visitorId: number, serviceId: string | null, firstSeq: number, at: string): Promise<void> {
    await db
      .insertInto('conversations')
      .values({ visitor_id: visitorId, service_id: serviceId, first_seq: firstSeq, last_seq: firstSeq, comment: '', started_at: at })
      .execute();
  }

  /** The id of the visitor's conversation now; compiled once, as it is read with every message a webhook takes. */
  async latestId(db: DbOrTx, visitorId: number): Promise<number | null> {
    return (await latestConversationId(db, { visitorId }))[0]?.id ?? null;
  }

  latest(db: DbOrTx, visitorId: number) {
    return db.selectFrom('conversations').selectAll().where('visitor_id', '=', visitorId).orderBy('id', 'desc').limit(1).executeTakeFirst();
  }

  async update(
    db: DbOrTx,
    id: number,
    changes: Partial<{ service_id: string | null; last_seq: number; ended_at: string; score: number; comment: string }>,
  ): Promise<void> {
    await db.updateTable('conversations').set(changes).where('id', '=', id).execute();
  }

  /** Told once a monitor was added (committed): the socket notifier keeps each visitor's monitors in memory. */
  onMonitorAdded: (visitorId: number) => Promise<void> = async () => undefined;

  async addMonitor(visitorId: number, agentUuid: string, at: string): Promise<void> {
    const exists = await this.db
      .selectFrom('monitors')
      .select('id')
      .where('visitor_id', '=', visitorId)
      .where('agent_uuid', '=', agentUuid)
      .executeTakeFirst();
    if (exists) return;
    await this.db.insertInto('monitors').values({ visitor_id: visitorId, agent_uuid: agentUuid, created_at: at }).execute();
    await this.onMonitorAdded(visitorId);
  }

  async monitorsOf(visitorId: number): Promise<string[]> {
    const rows = await this.db.selectFrom('monitors').select('agent_uuid').where('visitor_id', '=', visitorId).execute();
    return rows.map((row) => row.agent_uuid);
  }

  async clearMonitors(db: DbOrTx, visitorId: number): Promise<void> {
    await db.deleteFrom('monitors').where('visitor_id', '=', visitorId).execute();
  }

  /**
   * Whether an agent took part in one of a visitor's conversations: was given one, or spoke in one (a
   * transfer moves the conversation's agent, but the earlier agent's messages and tips keep its uuid), or
   * was mentioned in one of its internal notes (asked in, they may read what they were asked about).
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
    if (spoke) return true;
    const mentioned = await db
      .selectFrom('note_mentions')
      .select('note_id')
      .where('visitor_id', '=', visitorId)
      .where('agent_uuid', '=', agentUuid)
      .limit(1)
      .executeTakeFirst();
    return mentioned !== undefined;
  }
}
