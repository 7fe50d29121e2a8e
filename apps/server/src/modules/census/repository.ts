import { ABROAD_REGION_CODE, type CensusDim, MAX_CENSUS_DAYS } from '@parley/protocol';
import { type RawBuilder, sql } from 'kysely';
import type { DialectName } from '../../db/dialect.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Db } from '../../db/index.js';
import { consoleOpen } from '../../db/presence.js';
import { dayBounds, utcOffsetMinutes } from '../../lib/time.js';

/** A half-open span of stored times: `from` inclusive, `before` exclusive, ISO 8601 UTC. */
export interface Span {
  from: string;
  before: string;
}

/** The grouping key of each dimension over `visitors u` (and `links l` for the source); never from input. */
const DIM_KEYS: Record<CensusDim, string> = {
  engine: 'u.engine',
  keyword: 'u.keyword',
  platform: 'u.platform',
  // China by province (the first two digits of the code); abroad by country, as the address told it.
  area: `case when u.region_code = '${ABROAD_REGION_CODE}' then u.region when u.region_code = '' then '' else substr(u.region_code, 1, 2) end`,
  source: `coalesce(l.name, u.source)`,
};

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The values whose medians the statistics show: an agent's first response, a conversation's length. */
export type ValueKind = 'first_response' | 'duration';

/** A closed day's figures as the rollup keeps them. */
export interface DayFigures {
  visitors: number;
  visits: number;
  conversations: number;
  talkers: number;
  messages: number;
  rated: number;
  scoreSum: number;
}

const ZERO: DayFigures = { visitors: 0, visits: 0, conversations: 0, talkers: 0, messages: 0, rated: 0, scoreSum: 0 };

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
}

const num = (value: unknown): number => Number(value ?? 0);

/** SQL only: the statistics' reads over the raw tables and the few columns kept for them, and their writes. */
/** A group of conversations begun in a span (by label, by channel): figures that are not counted per group stay 0. */
function conversationFigures(row: { name: string; conversations: unknown; messages: unknown; rated: unknown; score_sum: unknown }) {
  return {
    name: row.name,
    visitors: 0,
    visits: 0,
    conversations: num(row.conversations),
    messages: num(row.messages),
    rated: num(row.rated),
    scoreSum: num(row.score_sum),
  };
}

export class CensusRepository {
  constructor(
    readonly db: Db,
    private readonly dialect: DialectName,
  ) {}

  /**
   * Told after `first..last` were counted into the rollup and checked, with when the count began
   * (performance.now): the recorder tells every process (CensusRecorder).
   */
  onCounted: (first: string, last: string, since: number) => void = () => undefined;

  // ——— Writes, as the events happen ———

  /** Records a state unless it is the agent's last recorded one already. */
  async logState(uuid: string, state: string, at: string): Promise<void> {
    const last = await this.db
      .selectFrom('agent_state_log')
      .select('state')
      .where('agent_uuid', '=', uuid)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (last?.state === state) return;
    await this.db.insertInto('agent_state_log').values({ agent_uuid: uuid, state, at }).execute();
  }

  async logTransfer(visitorId: number, from: string | null, to: string, at: string): Promise<void> {
    const conversation = await this.db
      .selectFrom('conversations')
      .select('id')
      .where('visitor_id', '=', visitorId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!conversation) return;
    await this.db
      .insertInto('conversation_transfers')
      .values({ conversation_id: conversation.id, from_service_id: from, to_service_id: to, at })
      .execute();
  }

  /** When the visitor's latest conversation began, if it has one. */
  async latestStarted(visitorId: number): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('conversations')
      .select('started_at')
      .where('visitor_id', '=', visitorId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.started_at;
  }

  // ——— Reads ———

  /**
   * The site's day of a stored time, in SQL. PostgreSQL knows the zones; for SQLite the span is cut where
   * the zone's offset changes (daylight saving: a few cuts a year), each piece shifted by its own offset.
   */
  private localDay(column: string, span: Span, zone: string): RawBuilder<string> {
    const ref = sql.ref(column);
    if (this.dialect === 'postgres') return sql<string>`to_char((${ref})::timestamptz at time zone ${zone}, 'YYYY-MM-DD')`;
    const pieces = offsetPieces(span, zone);
    const shift = (minutes: number) => sql.lit(`${minutes >= 0 ? '+' : ''}${minutes} minutes`);
    const last = pieces[pieces.length - 1];
    if (!last || pieces.length === 1) return sql<string>`date(${ref}, ${shift(last?.offset ?? 0)})`;
    const branches = pieces.slice(0, -1).map((piece) => sql`when ${ref} < ${sql.lit(piece.until)} then ${shift(piece.offset)}`);
    return sql<string>`date(${ref}, case ${sql.join(branches, sql` `)} else ${shift(last.offset)} end)`;
  }

  /** Milliseconds from one stored time to another, in SQL. */
  private msBetween(later: string, earlier: string): RawBuilder<number> {
    if (this.dialect === 'postgres') {
      return sql<number>`(extract(epoch from (${sql.ref(later)})::timestamptz - (${sql.ref(earlier)})::timestamptz) * 1000)`;
    }
    return sql<number>`((julianday(${sql.ref(later)}) - julianday(${sql.ref(earlier)})) * 86400000)`;
  }

  /** Visitors and visits by the dimension, over visits in the span. */
  async flowByDim(dim: CensusDim, span: Span) {
    const { rows } = await sql<{ name: string | null; visitors: unknown; visits: unknown }>`
      select ${sql.raw(DIM_KEYS[dim])} as name, count(distinct v.visitor_id) as visitors, count(*) as visits
      from visits v join visitors u on u.id = v.visitor_id left join links l on l.id = u.link_id
      where v.created_at >= ${span.from} and v.created_at < ${span.before}
      group by ${sql.raw(DIM_KEYS[dim])}`.execute(this.db);
    return rows.map((row) => ({ name: row.name ?? '', visitors: num(row.visitors), visits: num(row.visits) }));
  }

  /** Conversations begun in the span by the dimension, with messages and ratings. */
  async talkByDim(dim: CensusDim, span: Span) {
    const { rows } = await sql<{ name: string | null; conversations: unknown; messages: unknown; rated: unknown; score_sum: unknown }>`
      select ${sql.raw(DIM_KEYS[dim])} as name, count(*) as conversations, sum(c.messages) as messages,
        count(c.score) as rated, sum(c.score) as score_sum
      from conversations c join visitors u on u.id = c.visitor_id left join links l on l.id = u.link_id
      where c.started_at >= ${span.from} and c.started_at < ${span.before}
      group by ${sql.raw(DIM_KEYS[dim])}`.execute(this.db);
    return rows.map((row) => ({
      name: row.name ?? '',
      conversations: num(row.conversations),
      messages: num(row.messages),
      rated: num(row.rated),
      scoreSum: num(row.score_sum),
    }));
  }

  /**
   * Conversations begun in the span by the labels they carry now: each label's conversations, their
   * messages and ratings. Read from the conversations themselves (labels change after the day closes,
   * so the daily rollup cannot hold them); the join's label index and conversations_started keep it quick.
   */
  async talkByLabel(span: Span) {
    const { rows } = await sql<{ name: string; conversations: unknown; messages: unknown; rated: unknown; score_sum: unknown }>`
      select l.name as name, count(*) as conversations, sum(c.messages) as messages,
        count(c.score) as rated, sum(c.score) as score_sum
      from conversation_labels cl join conversations c on c.id = cl.conversation_id join labels l on l.id = cl.label_id
      where c.started_at >= ${span.from} and c.started_at < ${span.before}
      group by l.id, l.name`.execute(this.db);
    return rows.map(conversationFigures);
  }

  /**
   * Conversations begun in the span by their visitor's channel (web, official account, mini program), with
   * messages and ratings; read from the conversations themselves, as labels are (the rollup has no channel).
   */
  async talkByChannel(span: Span) {
    const { rows } = await sql<{ name: string; conversations: unknown; messages: unknown; rated: unknown; score_sum: unknown }>`
      select u.channel as name, count(*) as conversations, sum(c.messages) as messages,
        count(c.score) as rated, sum(c.score) as score_sum
      from conversations c join visitors u on u.id = c.visitor_id
      where c.started_at >= ${span.from} and c.started_at < ${span.before}
      group by u.channel`.execute(this.db);
    return rows.map(conversationFigures);
  }

  /** Distinct visitors and visits per site day. */
  async visitsByDay(span: Span, zone: string) {
    const day = this.localDay('v.created_at', span, zone);
    const { rows } = await sql<{ day: string; visitors: unknown; visits: unknown }>`
      select ${day} as day, count(distinct v.visitor_id) as visitors, count(*) as visits from visits v
      where v.created_at >= ${span.from} and v.created_at < ${span.before} group by 1`.execute(this.db);
    return rows.map((row) => ({ day: row.day, visitors: num(row.visitors), visits: num(row.visits) }));
  }

  /** Conversations per site day, with their rated count, score sum and median first response. */
  async conversationsByDay(span: Span, zone: string) {
    const day = this.localDay('c.started_at', span, zone);
    const { rows } = await sql<{ day: string; conversations: unknown; rated: unknown; score_sum: unknown }>`
      select ${day} as day, count(*) as conversations, count(c.score) as rated, sum(c.score) as score_sum
      from conversations c where c.started_at >= ${span.from} and c.started_at < ${span.before} group by 1`.execute(this.db);
    const medians = await this.median(sql`${day}`, sql.ref('c.first_response_ms'), span);
    return rows.map((row) => ({
      day: row.day,
      conversations: num(row.conversations),
      rated: num(row.rated),
      scoreSum: num(row.score_sum),
      firstResponseMs: medians.get(row.day) ?? null,
    }));
  }

  /**
   * The median of `value` per `group` over conversations begun in the span (rows where it is null left
   * out), in SQL: the middle row, or the mean of the two middle rows, of each group.
   */
  private async median(group: RawBuilder<unknown>, value: RawBuilder<unknown>, span: Span): Promise<Map<string, number>> {
    const { rows } = await sql<{ k: unknown; m: unknown }>`
      select k, avg(x) as m from (
        select ${group} as k, ${value} as x,
          row_number() over (partition by ${group} order by ${value}) as rn,
          count(*) over (partition by ${group}) as n
        from conversations c
        where c.started_at >= ${span.from} and c.started_at < ${span.before} and ${value} is not null
      ) t where rn * 2 >= n and rn * 2 <= n + 2 group by k`.execute(this.db);
    return new Map(rows.map((row) => [String(row.k ?? ''), Math.round(num(row.m))]));
  }

  /** Visitors with a visit, visits, conversations, visitors who began one, ratings and the median first response. */
  async totals(span: Span, withMedian = true) {
    const visits = await sql<{ visitors: unknown; visits: unknown }>`
      select count(distinct visitor_id) as visitors, count(*) as visits from visits
      where created_at >= ${span.from} and created_at < ${span.before}`.execute(this.db);
    const talks = await sql<{ conversations: unknown; talkers: unknown; messages: unknown; rated: unknown; score_sum: unknown }>`
      select count(*) as conversations, count(distinct visitor_id) as talkers, sum(messages) as messages,
        count(score) as rated, sum(score) as score_sum
      from conversations where started_at >= ${span.from} and started_at < ${span.before}`.execute(this.db);
    const medians = withMedian ? await this.median(sql`0`, sql.ref('c.first_response_ms'), span) : new Map<string, number>();
    const v = visits.rows[0];
    const t = talks.rows[0];
    return {
      visitors: num(v?.visitors),
      visits: num(v?.visits),
      conversations: num(t?.conversations),
      talkers: num(t?.talkers),
      messages: num(t?.messages),
      rated: num(t?.rated),
      scoreSum: num(t?.score_sum),
      firstResponseMs: medians.get('0') ?? null,
    };
  }

  /** Agents as the statistics list them: every account that is not waiting for approval. */
  agents(presentSince: string) {
    return this.db
      .selectFrom('agents')
      .select((eb) => ['agents.uuid', 'agents.nickname', 'agents.state', 'agents.disabled', consoleOpen(eb, presentSince).as('present')])
      .where('agents.pending', '=', 0)
      .orderBy('agents.id')
      .execute();
  }

  /** Per agent: conversations begun in the span, messages, median first response and duration. */
  async serviceTalk(span: Span, withMedians = true, counted?: { agent: string; conversations: number; messages: number }[]) {
    // `counted`: the agents' conversations and messages over the span, summed from the monthly rollup.
    const rows = (counted ?? (await this.agentCounts(span))).map((row) => ({ service_id: row.agent, ...row }));
    const none = new Map<string, number>();
    const firstResponse = withMedians ? await this.median(sql.ref('c.service_id'), sql.ref('c.first_response_ms'), span) : none;
    const duration = withMedians
      ? await this.median(
          sql.ref('c.service_id'),
          sql`case when c.ended_at is null then null else ${this.msBetween('c.ended_at', 'c.started_at')} end`,
          span,
        )
      : none;
    const transfers = await sql<{ service_id: string; transfers: unknown }>`
      select from_service_id as service_id, count(*) as transfers from conversation_transfers
      where at >= ${span.from} and at < ${span.before} and from_service_id is not null
      group by from_service_id`.execute(this.db);
    const handedOn = new Map(transfers.rows.map((row) => [row.service_id, num(row.transfers)]));
    return new Map(
      [...new Set([...rows.map((row) => row.service_id), ...handedOn.keys()])].map((id) => {
        const row = rows.find((candidate) => candidate.service_id === id);
        return [
          id,
          {
            conversations: num(row?.conversations),
            messages: num(row?.messages),
            firstResponseMs: firstResponse.get(id) ?? null,
            durationMs: duration.get(id) ?? null,
            transfers: handedOn.get(id) ?? 0,
          },
        ];
      }),
    );
  }

  /** Per agent (and '' for conversations without one): ratings of conversations begun in the span, by score. */
  async serviceEvaluate(span: Span) {
    const { rows } = await sql<{ service_id: string | null; score: number; n: unknown }>`
      select service_id, score, count(*) as n from conversations
      where started_at >= ${span.from} and started_at < ${span.before} and score is not null
      group by service_id, score`.execute(this.db);
    return rows.map((row) => ({ serviceID: row.service_id ?? '', score: num(row.score), n: num(row.n) }));
  }

  /**
   * The latest rated conversations begun in the span that carry a comment, newest first: beside the
   * grouped reads above, it lists rows, so it stops at `limit`.
   */
  ratingComments(span: Span, limit: number, serviceID?: string) {
    let query = this.db
      .selectFrom('conversations')
      .innerJoin('visitors', 'visitors.id', 'conversations.visitor_id')
      .leftJoin('agents', 'agents.uuid', 'conversations.service_id')
      .select([
        'conversations.id',
        'conversations.score',
        'conversations.comment',
        'conversations.service_id',
        'conversations.started_at',
        'agents.nickname as agent_nickname',
        'visitors.id as visitor_id',
        'visitors.name as visitor_name',
      ])
      .where('conversations.started_at', '>=', span.from)
      .where('conversations.started_at', '<', span.before)
      .where('conversations.score', 'is not', null)
      .where('conversations.comment', '<>', '');
    if (serviceID !== undefined) query = query.where('conversations.service_id', '=', serviceID);
    return query.orderBy('conversations.started_at', 'desc').orderBy('conversations.id', 'desc').limit(limit).execute();
  }

  /** Each agent's state as of `at` (the last change before it), for agents that have one. */
  async statesBefore(at: string) {
    const { rows } = await sql<{ agent_uuid: string; state: string }>`
      select l.agent_uuid, l.state from agent_state_log l
      where l.id = (select m.id from agent_state_log m where m.agent_uuid = l.agent_uuid and m.at < ${at}
        order by m.at desc, m.id desc limit 1)`.execute(this.db);
    return new Map(rows.map((row) => [row.agent_uuid, row.state]));
  }

  // ——— Daily rollups (census_days) of closed days ———

  /** The span of site days `first..last` in `zone`. */
  daysSpan(first: string, last: string, zone: string): Span {
    return { from: dayBounds(first, zone).from, before: new Date(Date.parse(dayBounds(last, zone).to) + 1).toISOString() };
  }

  /**
   * Counts the days of `first..last` the rollup lacks in `zone` from the raw tables and keeps them. Each run
   * of missing days is one pass per figure; a day is kept with its totals row even when empty, so that an
   * empty day is not counted again.
   */
  fillDays(zone: string, first: string, last: string): Promise<void> {
    // One fill at a time in a process, so that parallel calls do not count the same days twice.
    const run = this.filling.then(() => this.fillMissing(zone, first, last));
    this.filling = run.catch(() => undefined);
    return run;
  }

  private filling: Promise<void> = Promise.resolve();

  private async fillMissing(zone: string, first: string, last: string): Promise<void> {
    const present = new Set(
      (
        await this.db
          .selectFrom('census_days')
          .select('day')
          .where('zone', '=', zone)
          .where('dim', '=', '')
          .where('day', '>=', first)
          .where('day', '<=', last)
          .execute()
      ).map((row) => row.day),
    );
    let runStart: string | null = null;
    for (let day = first; ; day = nextDay(day)) {
      const missing = day <= last && !present.has(day);
      if (missing && runStart === null) runStart = day;
      if (!missing && runStart !== null) {
        await this.countDays(zone, runStart, previousDay(day));
        runStart = null;
      }
      if (day > last) break;
    }
  }

  /** Counts `first..last` from the raw tables into the rollup, replacing what it held for them. */
  private async countDays(zone: string, first: string, last: string): Promise<void> {
    const span = this.daysSpan(first, last, zone);
    const since = performance.now();
    // The reads below are not one snapshot: a late message may land between them (see the check at the end).
    const before = await this.lateFigures(span, zone);
    const rows = new Map<string, DayFigures & { day: string; dim: string; name: string }>();
    const row = (day: string, dim: string, name: string) => {
      const key = `${day}\u0000${dim}\u0000${name}`;
      let found = rows.get(key);
      if (!found) {
        found = { day, dim, name, ...ZERO };
        rows.set(key, found);
      }
      return found;
    };
    for (let day = first; day <= last; day = nextDay(day)) row(day, '', '');
    const visitDay = this.localDay('v.created_at', span, zone);
    const talkDay = this.localDay('c.started_at', span, zone);
    const visits = await sql<{ day: string; visitors: unknown; visits: unknown }>`
      select ${visitDay} as day, count(distinct v.visitor_id) as visitors, count(*) as visits from visits v
      where v.created_at >= ${span.from} and v.created_at < ${span.before} group by 1`.execute(this.db);
    for (const found of visits.rows) Object.assign(row(found.day, '', ''), { visitors: num(found.visitors), visits: num(found.visits) });
    const talks = await sql<{
      day: string;
      conversations: unknown;
      talkers: unknown;
      messages: unknown;
      rated: unknown;
      score_sum: unknown;
    }>`
      select ${talkDay} as day, count(*) as conversations, count(distinct c.visitor_id) as talkers, sum(c.messages) as messages,
        count(c.score) as rated, sum(c.score) as score_sum
      from conversations c where c.started_at >= ${span.from} and c.started_at < ${span.before} group by 1`.execute(this.db);
    for (const found of talks.rows) {
      Object.assign(row(found.day, '', ''), {
        conversations: num(found.conversations),
        talkers: num(found.talkers),
        messages: num(found.messages),
        rated: num(found.rated),
        scoreSum: num(found.score_sum),
      });
    }
    for (const dim of Object.keys(DIM_KEYS) as CensusDim[]) {
      const key = sql.raw(DIM_KEYS[dim]);
      const byVisits = await sql<{ day: string; name: string | null; visitors: unknown; visits: unknown }>`
        select ${visitDay} as day, ${key} as name, count(distinct v.visitor_id) as visitors, count(*) as visits
        from visits v join visitors u on u.id = v.visitor_id left join links l on l.id = u.link_id
        where v.created_at >= ${span.from} and v.created_at < ${span.before} group by 1, 2`.execute(this.db);
      for (const found of byVisits.rows) {
        Object.assign(row(found.day, dim, found.name ?? ''), { visitors: num(found.visitors), visits: num(found.visits) });
      }
      const byTalks = await sql<{
        day: string;
        name: string | null;
        conversations: unknown;
        messages: unknown;
        rated: unknown;
        score_sum: unknown;
      }>`
        select ${talkDay} as day, ${key} as name, count(*) as conversations, sum(c.messages) as messages,
          count(c.score) as rated, sum(c.score) as score_sum
        from conversations c join visitors u on u.id = c.visitor_id left join links l on l.id = u.link_id
        where c.started_at >= ${span.from} and c.started_at < ${span.before} group by 1, 2`.execute(this.db);
      for (const found of byTalks.rows) {
        Object.assign(row(found.day, dim, found.name ?? ''), {
          conversations: num(found.conversations),
          messages: num(found.messages),
          rated: num(found.rated),
          scoreSum: num(found.score_sum),
        });
      }
    }
    const counted = [...(await this.valueCounts(span, zone, 'first_response')), ...(await this.valueCounts(span, zone, 'duration'))].map(
      (found) => ({ zone, ...found }),
    );
    const values = [...rows.values()].map(({ scoreSum, name, ...rest }) => ({
      zone,
      ...rest,
      name: name.slice(0, 255),
      score_sum: scoreSum,
    }));
    try {
      await this.db.transaction().execute(async (tx) => {
        await tx.deleteFrom('census_days').where('zone', '=', zone).where('day', '>=', first).where('day', '<=', last).execute();
        for (let at = 0; at < values.length; at += 500) {
          await tx
            .insertInto('census_days')
            .values(values.slice(at, at + 500))
            .execute();
        }
        await tx.deleteFrom('census_day_values').where('zone', '=', zone).where('day', '>=', first).where('day', '<=', last).execute();
        for (let at = 0; at < counted.length; at += 1000) {
          await tx
            .insertInto('census_day_values')
            .values(counted.slice(at, at + 1000))
            .execute();
        }
      });
    } catch (error) {
      // Another process counted the same days meanwhile, from the same rows: its count stands (and it checks it).
      if (!isUniqueViolation(error)) throw error;
      return;
    }
    // A late change that landed while the days were read may be missing from what was just kept, and
    // its recorder may have dropped the days before they were kept: the days it moved go again.
    const after = await this.lateFigures(span, zone);
    const moved = [...new Set([...before.keys(), ...after.keys()])].filter((day) => before.get(day) !== after.get(day));
    await this.dropDays(moved);
    this.onCounted(first, last, since);
  }

  /**
   * What a late event can still change of the conversations begun in the span, per site day: messages,
   * ratings, first responses and ends. Each only grows (a score may change, so its sum is in too).
   */
  private async lateFigures(span: Span, zone: string): Promise<Map<string, string>> {
    const day = this.localDay('c.started_at', span, zone);
    const { rows } = await sql<{
      day: string;
      n: unknown;
      messages: unknown;
      rated: unknown;
      score_sum: unknown;
      answered: unknown;
      ended: unknown;
    }>`
      select ${day} as day, count(*) as n, sum(c.messages) as messages, count(c.score) as rated, sum(c.score) as score_sum,
        count(c.first_response_ms) as answered, count(c.ended_at) as ended
      from conversations c where c.started_at >= ${span.from} and c.started_at < ${span.before} group by 1`.execute(this.db);
    return new Map(
      rows.map((row) => [row.day, [row.n, row.messages, row.rated, row.score_sum, row.answered, row.ended].map(num).join(' ')]),
    );
  }

  /** Drops the days (in every zone) a late change touched, and their months; the next read counts them again. */
  async dropDays(days: string[]): Promise<void> {
    if (days.length === 0) return;
    await this.db.deleteFrom('census_days').where('day', 'in', days).execute();
    await this.db.deleteFrom('census_day_values').where('day', 'in', days).execute();
    // After the days: a month being summed meanwhile is either dropped here or sees a day gone (countMonth).
    const months = [...new Set(days.map((day) => day.slice(0, 7)))];
    await this.db.deleteFrom('census_months').where('month', 'in', months).execute();
    await this.db.deleteFrom('census_month_values').where('month', 'in', months).execute();
    await this.db.deleteFrom('census_month_agents').where('month', 'in', months).execute();
  }

  // ——— Monthly sums (census_month_values) of the medians' value counts ———

  /**
   * Sums the value counts of the closed `months` (YYYY-MM) the monthly rollup lacks in `zone` from their
   * days (`fillDays` first), and answers which of them it holds now: a month with a day missing (dropped
   * by a late event since) is left for a later read, and its days are read instead.
   */
  fillMonths(zone: string, months: string[]): Promise<Set<string>> {
    // In the same queue as the day fills, so that a month is summed after its days are counted.
    const run = this.filling.then(() => this.fillMissingMonths(zone, months));
    this.filling = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async fillMissingMonths(zone: string, months: string[]): Promise<Set<string>> {
    if (months.length === 0) return new Set();
    const held = async () =>
      new Set(
        (await this.db.selectFrom('census_months').select('month').where('zone', '=', zone).where('month', 'in', months).execute()).map(
          (row) => row.month,
        ),
      );
    const present = await held();
    for (const month of months) if (!present.has(month)) await this.countMonth(zone, month);
    return held();
  }

  private async countMonth(zone: string, month: string): Promise<void> {
    const first = `${month}-01`;
    const last = lastDayOfMonth(month);
    const whole = async () => {
      const row = await this.db
        .selectFrom('census_days')
        .select((eb) => eb.fn.countAll().as('days'))
        .where('zone', '=', zone)
        .where('dim', '=', '')
        .where('day', '>=', first)
        .where('day', '<=', last)
        .executeTakeFirst();
      return num(row?.days) === Number(last.slice(8));
    };
    if (!(await whole())) return;
    try {
      await this.db.transaction().execute(async (tx) => {
        await tx.deleteFrom('census_month_values').where('zone', '=', zone).where('month', '=', month).execute();
        await sql`
          insert into census_month_values (zone, month, what, agent, seconds, n)
          select ${zone}, ${month}, what, agent, seconds, sum(n) from census_day_values
          where zone = ${zone} and day >= ${first} and day <= ${last} group by what, agent, seconds`.execute(tx);
        await tx.deleteFrom('census_month_agents').where('zone', '=', zone).where('month', '=', month).execute();
        const span = this.daysSpan(first, last, zone);
        await sql`
          insert into census_month_agents (zone, month, agent, conversations, messages)
          select ${zone}, ${month}, service_id, count(*), sum(messages) from conversations
          where started_at >= ${span.from} and started_at < ${span.before} and service_id is not null
          group by service_id`.execute(tx);
        await tx.insertInto('census_months').values({ zone, month }).execute();
      });
    } catch (error) {
      // Another process summed the same month meanwhile, from the same days: its sum stands.
      if (!isUniqueViolation(error)) throw error;
    }
    // A late event that dropped a day after the check above found no month to drop yet: drop it here.
    if (!(await whole())) {
      await this.db.deleteFrom('census_months').where('zone', '=', zone).where('month', '=', month).execute();
      await this.db.deleteFrom('census_month_values').where('zone', '=', zone).where('month', '=', month).execute();
      await this.db.deleteFrom('census_month_agents').where('zone', '=', zone).where('month', '=', month).execute();
    }
  }

  /** Per agent: conversations begun in the held months `first..last` (YYYY-MM) and their messages. */
  async rolledMonthAgents(zone: string, first: string, last: string) {
    const { rows } = await sql<{ agent: string; conversations: unknown; messages: unknown }>`
      select agent, sum(conversations) as conversations, sum(messages) as messages from census_month_agents
      where zone = ${zone} and month >= ${first} and month <= ${last} group by agent`.execute(this.db);
    return rows.map((row) => ({ agent: row.agent, conversations: num(row.conversations), messages: num(row.messages) }));
  }

  /** Per agent: conversations begun in the span and their messages. */
  async agentCounts(span: Span) {
    const { rows } = await sql<{ service_id: string; conversations: unknown; messages: unknown }>`
      select service_id, count(*) as conversations, sum(messages) as messages from conversations
      where started_at >= ${span.from} and started_at < ${span.before} and service_id is not null
      group by service_id`.execute(this.db);
    return rows.map((row) => ({ agent: row.service_id, conversations: num(row.conversations), messages: num(row.messages) }));
  }

  /** The value counts of the held months `first..last` (YYYY-MM), summed in the database over the whole or per agent. */
  async rolledMonthValueCounts(zone: string, first: string, last: string, what: ValueKind, by: 'all' | 'agents') {
    const { rows } = await sql<{ agent: string; seconds: unknown; n: unknown }>`
      select agent, seconds, sum(n) as n from census_month_values
      where zone = ${zone} and what = ${what} and month >= ${first} and month <= ${last}
        and ${by === 'agents' ? sql`agent <> ''` : sql`agent = ''`}
      group by agent, seconds`.execute(this.db);
    return rows.map((row) => ({ day: '', agent: row.agent, seconds: num(row.seconds), n: num(row.n) }));
  }

  /**
   * How many conversations begun in the span had each value, per site day and agent, and ('') over all
   * agents: the first response to the second, the length of ended ones to ten seconds.
   */
  async valueCounts(span: Span, zone: string, what: ValueKind) {
    const day = this.localDay('c.started_at', span, zone);
    const seconds =
      what === 'first_response'
        ? sql`round(c.first_response_ms / 1000.0)`
        : sql`round(${this.msBetween('c.ended_at', 'c.started_at')} / 10000.0) * 10`;
    const present = what === 'first_response' ? sql`c.first_response_ms is not null` : sql`c.ended_at is not null`;
    const { rows } = await sql<{ day: string; agent: string | null; seconds: unknown; n: unknown }>`
      select ${day} as day, c.service_id as agent, ${seconds} as seconds, count(*) as n from conversations c
      where c.started_at >= ${span.from} and c.started_at < ${span.before} and ${present} group by 1, 2, 3`.execute(this.db);
    const all = new Map<string, { day: string; what: string; agent: string; seconds: number; n: number }>();
    const counted = rows.map((row) => ({ day: row.day, what, agent: row.agent ?? '', seconds: num(row.seconds), n: num(row.n) }));
    for (const row of counted) {
      const key = `${row.day} ${row.seconds}`;
      const found = all.get(key) ?? { ...row, agent: '', n: 0 };
      found.n += row.n;
      all.set(key, found);
    }
    // Conversations without an agent count in the whole only.
    return [...counted.filter((row) => row.agent !== ''), ...all.values()];
  }

  /**
   * The value counts of closed days from the rollup (`fillDays` first), summed in the database: over the
   * days for the whole (`all`) or per agent (`agents`), or the whole per day (`days`).
   */
  async rolledValueCounts(zone: string, first: string, last: string, what: ValueKind, by: 'all' | 'agents' | 'days') {
    const { rows } = await sql<{ day: string; agent: string; seconds: unknown; n: unknown }>`
      select ${by === 'days' ? sql`day` : sql`''`} as day, agent, seconds, sum(n) as n from census_day_values
      where zone = ${zone} and what = ${what} and day >= ${first} and day <= ${last}
        and ${by === 'agents' ? sql`agent <> ''` : sql`agent = ''`}
      group by ${by === 'days' ? sql`day, ` : sql``}agent, seconds`.execute(this.db);
    return rows.map((row) => ({ day: row.day, agent: row.agent, seconds: num(row.seconds), n: num(row.n) }));
  }

  /** Empties the rollup and counts again, in `zone`, the closed days a range and the period before it can cover. */
  async rebuildDays(zone: string, lastClosed: string): Promise<void> {
    await this.db.deleteFrom('census_days').execute();
    await this.db.deleteFrom('census_day_values').execute();
    await this.db.deleteFrom('census_months').execute();
    await this.db.deleteFrom('census_month_values').execute();
    await this.db.deleteFrom('census_month_agents').execute();
    const first = new Date(Date.parse(`${lastClosed}T00:00:00Z`) - 2 * MAX_CENSUS_DAYS * DAY_MS).toISOString().slice(0, 10);
    await this.fillDays(zone, first, lastClosed);
    // The months too, so that the first year asked for after a rebuild does not sum a dozen of them.
    await this.fillMonths(zone, wholeMonths(first, lastClosed));
  }

  /** Each closed day's totals, from the rollup (`fillDays` first). */
  async rolledDays(zone: string, first: string, last: string): Promise<Map<string, DayFigures>> {
    const rows = await this.db
      .selectFrom('census_days')
      .selectAll()
      .where('zone', '=', zone)
      .where('dim', '=', '')
      .where('day', '>=', first)
      .where('day', '<=', last)
      .execute();
    return new Map(
      rows.map((found) => [
        found.day,
        {
          visitors: num(found.visitors),
          visits: num(found.visits),
          conversations: num(found.conversations),
          talkers: num(found.talkers),
          messages: num(found.messages),
          rated: num(found.rated),
          scoreSum: num(found.score_sum),
        },
      ]),
    );
  }

  /** A dimension's values over closed days, summed from the rollup (`fillDays` first). */
  async rolledDim(dim: CensusDim, zone: string, first: string, last: string) {
    const { rows } = await sql<{
      name: string;
      visitors: unknown;
      visits: unknown;
      conversations: unknown;
      messages: unknown;
      rated: unknown;
      score_sum: unknown;
    }>`
      select name, sum(visitors) as visitors, sum(visits) as visits, sum(conversations) as conversations,
        sum(messages) as messages, sum(rated) as rated, sum(score_sum) as score_sum
      from census_days where zone = ${zone} and dim = ${dim} and day >= ${first} and day <= ${last} group by name`.execute(this.db);
    return rows.map((found) => ({
      name: found.name,
      visitors: num(found.visitors),
      visits: num(found.visits),
      conversations: num(found.conversations),
      messages: num(found.messages),
      rated: num(found.rated),
      scoreSum: num(found.score_sum),
    }));
  }

  /** The median first response of conversations begun in the span, per site day. */
  firstResponseByDay(span: Span, zone: string) {
    return this.median(sql`${this.localDay('c.started_at', span, zone)}`, sql.ref('c.first_response_ms'), span);
  }

  /** The median first response of conversations begun in the span. */
  async firstResponse(span: Span): Promise<number | null> {
    return (await this.median(sql`0`, sql.ref('c.first_response_ms'), span)).get('0') ?? null;
  }

  /** When a conversation began. */
  async conversationStarted(id: number): Promise<string | undefined> {
    return (await this.db.selectFrom('conversations').select('started_at').where('id', '=', id).executeTakeFirst())?.started_at;
  }

  /** The changes within the span, in order. */
  statesWithin(span: Span) {
    return this.db
      .selectFrom('agent_state_log')
      .select(['agent_uuid', 'state', 'at'])
      .where('at', '>=', span.from)
      .where('at', '<', span.before)
      .orderBy('at')
      .orderBy('id')
      .execute();
  }
}

/** The months (YYYY-MM) whose every day is within `first..last`, in order. */
export function wholeMonths(first: string, last: string): string[] {
  const after = (month: string) => nextDay(lastDayOfMonth(month)).slice(0, 7);
  const firstMonth = first.endsWith('-01') ? first.slice(0, 7) : after(first.slice(0, 7));
  const months: string[] = [];
  for (let month = firstMonth; lastDayOfMonth(month) <= last; month = after(month)) months.push(month);
  return months;
}

/** The last day of a month (YYYY-MM). */
export function lastDayOfMonth(month: string): string {
  return new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);
}

function previousDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);
}

/** The span cut where the zone's UTC offset changes: each piece's offset and where it ends. */
export function offsetPieces(span: Span, zone: string): { offset: number; until: string }[] {
  const start = Date.parse(span.from);
  const end = Date.parse(span.before);
  const pieces: { offset: number; until: string }[] = [];
  let offset = utcOffsetMinutes(start, zone);
  for (let at = start; at < end; at += HOUR_MS) {
    const next = Math.min(at + HOUR_MS, end);
    const after = utcOffsetMinutes(next, zone);
    if (after === offset) continue;
    // Somewhere in this hour the clocks changed: find the minute.
    let low = at;
    let high = next;
    while (high - low > 60_000) {
      const middle = low + Math.max(60_000, Math.floor((high - low) / 120_000) * 60_000);
      if (utcOffsetMinutes(middle, zone) === offset) low = middle;
      else high = middle;
    }
    pieces.push({ offset, until: new Date(high).toISOString() });
    offset = after;
  }
  pieces.push({ offset, until: span.before });
  return pieces;
}
