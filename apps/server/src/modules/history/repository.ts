import { type Expression, type ExpressionBuilder, expressionBuilder, type SqlBool } from 'kysely';
import { type Counted, countRows } from '../../db/count.js';
import type { DialectName } from '../../db/dialect.js';
import type { Db } from '../../db/index.js';
import type { Page } from '../../db/paginate.js';
import type { Database } from '../../db/schema.js';
import { LabelRepository } from '../labels/repository.js';
import { lastSeq, messagesIn } from './ranges.js';
import { KeywordSearch } from './search.js';

/** Which conversations a list or an export holds; times are stored instants, `before` exclusive. */
export interface ConversationFilter {
  keyword?: string | undefined;
  serviceId?: string | undefined;
  channel?: string | undefined;
  score?: number | undefined;
  from?: string | undefined;
  before?: string | undefined;
  /** One visitor's conversations (its detail page). */
  visitorId?: number | undefined;
  /** Only those this agent took part in (an agent without seeHistorical). */
  participant?: string | undefined;
  /** Only those carrying this label. */
  label?: number | undefined;
}

/** SQL of the conversation history, read side; a conversation is a row of `conversations`. */
export class HistoryRepository {
  private readonly labels: LabelRepository;

  private readonly search: KeywordSearch;

  constructor(
    private readonly db: Db,
    private readonly dialect: DialectName,
  ) {
    this.labels = new LabelRepository(db);
    this.search = new KeywordSearch(db, dialect);
  }

  /** The labels of these conversations, by their id (none: an empty list). */
  async labelsOf(rows: readonly { id: number }[]) {
    const found = await this.labels.ofConversations(rows.map((row) => row.id));
    return (row: { id: number }) => found.get(row.id) ?? [];
  }

  /**
   * The filter's conditions on the conversation's own columns: a list without filters on its visitor is
   * counted on `conversations` alone (joined to a million visitors, the count took a second).
   */
  private ownConditions(eb: ExpressionBuilder<Database, 'conversations'>, filter: ConversationFilter) {
    const conditions: Expression<SqlBool>[] = [];
    if (filter.visitorId !== undefined) conditions.push(eb('conversations.visitor_id', '=', filter.visitorId));
    if (filter.serviceId) conditions.push(eb('conversations.service_id', '=', filter.serviceId));
    if (filter.score !== undefined) conditions.push(eb('conversations.score', '=', filter.score));
    if (filter.from) conditions.push(eb('conversations.started_at', '>=', filter.from));
    if (filter.before) conditions.push(eb('conversations.started_at', '<', filter.before));
    const { label } = filter;
    if (label !== undefined)
      conditions.push(
        eb.exists(
          eb
            .selectFrom('conversation_labels')
            .select('conversation_labels.label_id')
            .whereRef('conversation_labels.conversation_id', '=', 'conversations.id')
            .where('conversation_labels.label_id', '=', label),
        ),
      );
    return conditions;
  }

  /** How many conversations the filter holds (on PostgreSQL past a hundred thousand, estimated: `db/count.ts`). */
  private count(filter: ConversationFilter): Promise<Counted> {
    return filter.channel || filter.participant || filter.keyword
      ? countRows(this.db, this.dialect, this.filtered(filter))
      : countRows(
          this.db,
          this.dialect,
          this.db.selectFrom('conversations').where((eb) => eb.and(this.ownConditions(eb, filter))),
        );
  }

  /** Whether a filter lets every conversation through: `filtered` would add no condition for it. */
  private keepsEvery(filter: ConversationFilter): boolean {
    return (
      this.ownConditions(expressionBuilder<Database, 'conversations'>(), filter).length === 0 && !filter.channel && !filter.participant
    );
  }

  private filtered(filter: ConversationFilter) {
    let query = this.db
      .selectFrom('conversations')
      .innerJoin('visitors', 'visitors.id', 'conversations.visitor_id')
      .where((eb) => eb.and(this.ownConditions(eb, filter)));
    if (filter.channel) query = query.where('visitors.channel', '=', filter.channel);
    const { keyword, participant } = filter;
    if (keyword) query = query.where('conversations.id', 'in', this.search.conversationIds(keyword));
    if (participant) {
      query = query.where((eb) =>
        eb.or([
          eb('conversations.service_id', '=', participant),
          // A transfer moves the conversation on, but the earlier agent's messages keep its uuid.
          eb.exists(messagesIn(eb).select('messages.id').where('messages.service_id', '=', participant)),
          // An agent a note mentions was asked in: they read that conversation.
          eb.exists(
            eb
              .selectFrom('note_mentions')
              .select('note_mentions.note_id')
              .whereRef('note_mentions.conversation_id', '=', 'conversations.id')
              .where('note_mentions.agent_uuid', '=', participant),
          ),
        ]),
      );
    }
    return query;
  }

  private withColumns(query: ReturnType<HistoryRepository['filtered']>) {
    return query
      .leftJoin('agents', 'agents.uuid', 'conversations.service_id')
      .leftJoin('links', 'links.id', 'visitors.link_id')
      .select((eb) => [
        'conversations.id',
        'conversations.service_id',
        'conversations.first_seq',
        'conversations.score',
        'conversations.comment',
        'conversations.started_at',
        'conversations.ended_at',
        'visitors.id as visitor_id',
        'visitors.public_id',
        'visitors.name',
        'visitors.channel',
        'visitors.region',
        'visitors.engine',
        'visitors.keyword',
        'visitors.referrer',
        'visitors.user_id',
        'visitors.email',
        'visitors.phone',
        'visitors.attributes',
        'links.name as link_name',
        'agents.nickname as agent_nickname',
        lastSeq(eb).as('last_seq'),
        messagesIn(eb)
          .select((inner) => inner.fn.countAll<number>().as('n'))
          .where('messages.role', '<>', 'tip')
          .as('messages'),
        messagesIn(eb)
          .select((inner) => inner.fn.min('messages.created_at').as('at'))
          .where('messages.role', '=', 'user')
          .as('first_visitor_at'),
        // The first agent message after the visitor's first message: how long the visitor waited for a person.
        messagesIn(eb)
          .select((inner) => inner.fn.min('messages.created_at').as('at'))
          .where('messages.role', '=', 'service')
          .where(
            'messages.seq',
            '>',
            messagesIn(eb)
              .select((inner) => inner.fn.min('messages.seq').as('seq'))
              .where('messages.role', '=', 'user'),
          )
          .as('first_response_at'),
      ]);
  }

  /**
   * A page of the list, newest first; with a keyword, best match first (`KeywordSearch.ranked`), its
   * total exact up to COUNT_CAP and `more` past it. The page's conversations are picked first and their
   * columns (four figures over each one's messages) computed for those alone.
   */
  async list(
    filter: ConversationFilter,
    page: Page,
  ): Promise<{ rows: ConversationRow[]; total: number; more: boolean; estimated: boolean }> {
    const { keyword, ...others } = filter;
    if (keyword) {
      // Without other filters every conversation a keyword finds is kept: no statement to ask.
      const keep = this.keepsEvery(others)
        ? async (ids: number[]) => ids
        : async (ids: number[]) =>
            ids.length === 0
              ? []
              : (await this.filtered(others).select('conversations.id').where('conversations.id', 'in', ids).execute()).map(
                  (row) => row.id,
                );
      const found = await this.search.ranked(keyword, keep, page.pageNo * page.pageSize);
      const ids = found.ids.slice((page.pageNo - 1) * page.pageSize, page.pageNo * page.pageSize);
      const rows = await this.pageRows(ids);
      const order = new Map(ids.map((id, at) => [id, at]));
      rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
      return { rows, total: found.total, more: found.more, estimated: false };
    }
    const [picked, counted] = await Promise.all([
      this.filtered(filter)
        .select('conversations.id')
        .orderBy('conversations.started_at', 'desc')
        .orderBy('conversations.id', 'desc')
        .offset((page.pageNo - 1) * page.pageSize)
        .limit(page.pageSize)
        .execute(),
      this.count(filter),
    ]);
    return { rows: await this.pageRows(picked.map((row) => row.id)), ...counted, more: false };
  }

  /** These conversations with their columns, newest first. */
  private async pageRows(ids: number[]) {
    if (ids.length === 0) return [];
    return this.withColumns(this.filtered({}).where('conversations.id', 'in', ids))
      .orderBy('conversations.started_at', 'desc')
      .orderBy('conversations.id', 'desc')
      .execute();
  }

  /**
   * Every matching conversation, newest first, a page at a time: each page starts after the last row of
   * the one before (keyset), so a long export reads no more than a page ahead and never skips or repeats.
   */
  async *each(filter: ConversationFilter, pageSize: number) {
    let after: { startedAt: string; id: number } | undefined;
    for (;;) {
      // After the first page the last row read is the upper bound, given alone: with the filter's own
      // bound beside it, SQLite walks the index from that one and skips every row exported so far.
      let query = this.filtered(after ? { ...filter, before: undefined } : filter);
      if (after) {
        const { startedAt, id } = after;
        query = query
          .where('conversations.started_at', '<=', startedAt)
          .where((eb) =>
            eb.or([
              eb('conversations.started_at', '<', startedAt),
              eb.and([eb('conversations.started_at', '=', startedAt), eb('conversations.id', '<', id)]),
            ]),
          );
      }
      const rows = await this.withColumns(query)
        .orderBy('conversations.started_at', 'desc')
        .orderBy('conversations.id', 'desc')
        .limit(pageSize)
        .execute();
      if (rows.length > 0) yield rows;
      const last = rows[rows.length - 1];
      if (!last || rows.length < pageSize) return;
      after = { startedAt: last.started_at, id: last.id };
    }
  }

  /** One conversation, when the filter (a participant's, say) lets it through. */
  find(id: number, filter: ConversationFilter = {}) {
    return this.withColumns(this.filtered(filter).where('conversations.id', '=', id)).executeTakeFirst();
  }

  messages(visitorId: number, firstSeq: number, lastSeq: number) {
    return this.db
      .selectFrom('messages')
      .selectAll()
      .where('visitor_id', '=', visitorId)
      .where('seq', '>=', firstSeq)
      .where('seq', '<=', lastSeq)
      .orderBy('seq')
      .execute();
  }
}

export type ConversationRow = NonNullable<Awaited<ReturnType<HistoryRepository['find']>>>;
