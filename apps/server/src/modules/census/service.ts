import {
  ABROAD_REGION_CODE,
  CENSUS_COMMENTS_LIMIT,
  type CensusDim,
  type CensusFigures,
  type CensusFlow,
  type CensusOverview,
  type CensusPeriod,
  type CensusScores,
  type CensusService as CensusServiceAnswer,
  type CensusServiceKind,
  type CensusTalk,
  type CensusTalkDim,
  DEFAULT_CENSUS_DAYS,
  MAX_CENSUS_DAYS,
} from '@parley/protocol';
import { dayBounds, dayOf } from '../../lib/time.js';
import { ValidationError } from '../../lib/validate.js';
import { AgentPresenceStore } from '../../realtime/presence.js';
import { regionTree } from '../regions/tree.js';
import { visitorNickname } from '../visitors/views.js';
import { censusState } from './recorder.js';
import { type CensusRepository, type DayFigures, lastDayOfMonth, type Span, type ValueKind, wholeMonths } from './repository.js';

const DAY_MS = 86_400_000;

/** The day `days` after `day` (negative: before), on the calendar. */
function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

const average = (sum: number, count: number) => (count > 0 ? Math.round((sum / count) * 100) / 100 : null);

let provinceNames: Map<string, string> | undefined;
/** Province names by the first two digits of their code. */
function provinceName(prefix: string): string {
  provinceNames ??= new Map(regionTree().map((node) => [node.code.slice(0, 2), node.name]));
  return provinceNames.get(prefix) ?? prefix;
}

/** A dimension's stored key as people read it: area keys are province codes in China. */
function nameOf(dim: CensusTalkDim, key: string): string {
  if (dim !== 'area' || !/^\d{2}$/.test(key) || key === ABROAD_REGION_CODE.slice(0, 2)) return key;
  return provinceName(key);
}

interface Range {
  period: CensusPeriod;
  span: Span;
  previous: Span;
  /** The previous period's first and last day. */
  before: [string, string];
  days: string[];
}

/** Figures over a run of days: visitors and talkers summed over the days, each counted once a day. */
interface Totals extends DayFigures {
  firstResponseMs: number | null;
}

/** A dimension value's figures; `name` is the stored key. */
interface DimRow {
  name: string;
  visitors: number;
  visits: number;
  conversations: number;
  messages: number;
  rated: number;
  scoreSum: number;
}

const add = (a: DayFigures, b: DayFigures): DayFigures => ({
  visitors: a.visitors + b.visitors,
  visits: a.visits + b.visits,
  conversations: a.conversations + b.conversations,
  talkers: a.talkers + b.talkers,
  messages: a.messages + b.messages,
  rated: a.rated + b.rated,
  scoreSum: a.scoreSum + b.scoreSum,
});
/** The median of counted values (seconds → ms): the middle one, or the mean of the two middle ones. */
function medianOf(counts: Map<number, number>): number | null {
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const wanted = [Math.floor((total - 1) / 2), Math.floor(total / 2)];
  const found: number[] = [];
  let seen = 0;
  for (const value of [...counts.keys()].sort((a, b) => a - b)) {
    const n = counts.get(value) ?? 0;
    for (const position of wanted) if (position >= seen && position < seen + n) found.push(value);
    seen += n;
  }
  return Math.round(((found[0] ?? 0) + (found[1] ?? found[0] ?? 0)) * 500);
}

/** Adds value counts into one histogram per key. */
interface ValueCount {
  day: string;
  agent: string;
  seconds: number;
  n: number;
}

function histograms<K>(rows: ValueCount[], keyOf: (row: ValueCount) => K | undefined) {
  const byKey = new Map<K, Map<number, number>>();
  for (const row of rows) {
    const key = keyOf(row);
    if (key === undefined) continue;
    const counts = byKey.get(key) ?? new Map<number, number>();
    counts.set(row.seconds, (counts.get(row.seconds) ?? 0) + row.n);
    byKey.set(key, counts);
  }
  return byKey;
}

const NONE: DayFigures = { visitors: 0, visits: 0, conversations: 0, talkers: 0, messages: 0, rated: 0, scoreSum: 0 };

/** The statistics of CONTRACT §9: the range in site days, the figures from the repository. */
export class CensusService {
  constructor(
    private readonly repo: CensusRepository,
    private readonly timeZone: () => string,
    private readonly now: () => number,
  ) {}

  /** The asked range with its defaults, refused (naming the field) when backwards or too long. */
  range(from: string | undefined, to: string | undefined): Range {
    const zone = this.timeZone();
    const last = to ?? dayOf(this.now(), zone);
    const first = from ?? addDays(last, 1 - DEFAULT_CENSUS_DAYS);
    const length = daysBetween(first, last);
    if (length < 1) throw new ValidationError('from', 'reasonInvalid', {});
    if (length > MAX_CENSUS_DAYS) throw new ValidationError('to', 'reasonTooBig', { max: MAX_CENSUS_DAYS });
    const span = this.spanOf(first, last);
    const previous = this.spanOf(addDays(first, -length), addDays(first, -1));
    const days = Array.from({ length }, (_, index) => addDays(first, index));
    const before: [string, string] = [addDays(first, -length), addDays(first, -1)];
    return { period: { from: first, to: last, timeZone: zone }, span, previous, before, days };
  }

  /**
   * Days before today are closed: their figures come from the daily rollup. Today (and any later day)
   * is still happening and is counted from the raw tables.
   */
  private split(first: string, last: string): { closed?: [string, string]; open?: Span } {
    const today = dayOf(this.now(), this.timeZone());
    const closedLast = last < today ? last : addDays(today, -1);
    const openFirst = first > today ? first : today;
    return {
      closed: first <= closedLast ? [first, closedLast] : undefined,
      open: openFirst <= last ? this.spanOf(openFirst, last) : undefined,
    };
  }

  /** Each day's figures (days with nothing left out). */
  private async dayFigures(first: string, last: string): Promise<Map<string, DayFigures>> {
    const zone = this.timeZone();
    const { closed, open } = this.split(first, last);
    const days = closed ? await this.repo.rolledDays(zone, closed[0], closed[1]) : new Map<string, DayFigures>();
    if (open) {
      const [visits, talks] = await Promise.all([this.repo.visitsByDay(open, zone), this.repo.conversationsByDay(open, zone)]);
      for (const visit of visits) days.set(visit.day, { ...(days.get(visit.day) ?? NONE), visitors: visit.visitors, visits: visit.visits });
      for (const talk of talks) {
        const { day, firstResponseMs: _median, ...figures } = talk;
        days.set(day, { ...(days.get(day) ?? NONE), ...figures });
      }
    }
    return days;
  }

  /**
   * Totals over `first..last`. The median first response is over the whole span at once, read from the
   * conversations themselves: only the overview shows it, so only it asks (`withMedian`).
   */
  private async totals(first: string, last: string, withMedian = false): Promise<Totals> {
    const { closed, open } = this.split(first, last);
    const zone = this.timeZone();
    const [rolled, live, firstResponseMs] = await Promise.all([
      closed ? this.repo.rolledDays(zone, closed[0], closed[1]) : new Map<string, DayFigures>(),
      open ? this.repo.totals(open, false) : undefined,
      withMedian ? this.firstResponse(first, last) : null,
    ]);
    let sum = [...rolled.values()].reduce(add, NONE);
    if (live) sum = add(sum, live);
    return { ...sum, firstResponseMs };
  }

  /**
   * Value counts over `first..last`: closed days' from the rollup, today's from the raw tables; undefined
   * when the range is today alone, which the raw tables answer exactly.
   */
  private async valueCounts(
    what: ValueKind,
    first: string,
    last: string,
    by: 'all' | 'agents' | 'days',
  ): Promise<ValueCount[] | undefined> {
    const { closed, open } = this.split(first, last);
    if (!closed) return undefined;
    const zone = this.timeZone();
    const [rolled, live] = await Promise.all([
      by === 'days' ? this.repo.rolledValueCounts(zone, closed[0], closed[1], what, by) : this.rolledByMonths(zone, closed, what, by),
      open ? this.repo.valueCounts(open, zone, what) : [],
    ]);
    return [...rolled, ...live];
  }

  /**
   * Closed days' value counts summed over `first..last`: the whole months in it from their monthly sums,
   * the partial months at its ends day by day (a year is then some 11 months and 30 days of rows instead
   * of 365 days'). The precision is the days': nothing is rounded further.
   */
  private async rolledByMonths(zone: string, [first, last]: [string, string], what: ValueKind, by: 'all' | 'agents') {
    const whole = await this.heldMonths(zone, first, last);
    if (!whole) return this.repo.rolledValueCounts(zone, first, last, what, by);
    const parts = await Promise.all([
      this.repo.rolledMonthValueCounts(zone, whole.first, whole.last, what, by),
      first < whole.from ? this.repo.rolledValueCounts(zone, first, addDays(whole.from, -1), what, by) : [],
      last > whole.to ? this.repo.rolledValueCounts(zone, addDays(whole.to, 1), last, what, by) : [],
    ]);
    return parts.flat();
  }

  /**
   * The whole months within the closed days `first..last` (months YYYY-MM, from their first day to their
   * last), once the monthly rollup holds every one of them; undefined when there is none, or when a month
   * had a day dropped since (a late event): it waits for a later read and the range is read by days.
   */
  private async heldMonths(zone: string, first: string, last: string) {
    const months = wholeMonths(first, last);
    const firstMonth = months[0];
    const lastMonth = months[months.length - 1];
    if (!firstMonth || !lastMonth) return undefined;
    const held = await this.repo.fillMonths(zone, months);
    if (months.some((month) => !held.has(month))) return undefined;
    return { first: firstMonth, last: lastMonth, from: `${firstMonth}-01`, to: lastDayOfMonth(lastMonth) };
  }

  /**
   * Each agent's conversations and messages over the range with its whole closed months summed from the
   * monthly rollup and the rest counted from the conversations; undefined when no whole month is held.
   */
  private async agentCounts(range: Range) {
    const { closed } = this.split(range.period.from, range.period.to);
    const whole = closed && (await this.heldMonths(range.period.timeZone, closed[0], closed[1]));
    if (!whole) return undefined;
    const parts = await Promise.all([
      this.repo.rolledMonthAgents(range.period.timeZone, whole.first, whole.last),
      range.period.from < whole.from ? this.repo.agentCounts(this.spanOf(range.period.from, addDays(whole.from, -1))) : [],
      range.period.to > whole.to ? this.repo.agentCounts(this.spanOf(addDays(whole.to, 1), range.period.to)) : [],
    ]);
    const sums = new Map<string, { agent: string; conversations: number; messages: number }>();
    for (const row of parts.flat()) {
      const found = sums.get(row.agent) ?? { agent: row.agent, conversations: 0, messages: 0 };
      found.conversations += row.conversations;
      found.messages += row.messages;
      sums.set(row.agent, found);
    }
    return [...sums.values()];
  }

  /** The median first response over `first..last`: to the second where closed days are in it. */
  private async firstResponse(first: string, last: string): Promise<number | null> {
    const counts = await this.valueCounts('first_response', first, last, 'all');
    if (!counts) return this.repo.firstResponse(this.spanOf(first, last));
    return medianOf(histograms(counts, (row) => (row.agent === '' ? '' : undefined)).get('') ?? new Map());
  }

  /** A dimension's values over `first..last`. */
  private async dimRows(dim: CensusDim, first: string, last: string): Promise<DimRow[]> {
    const { closed, open } = this.split(first, last);
    const rows = new Map<string, DimRow>();
    const row = (name: string) => {
      let found = rows.get(name);
      if (!found) {
        found = { name, visitors: 0, visits: 0, conversations: 0, messages: 0, rated: 0, scoreSum: 0 };
        rows.set(name, found);
      }
      return found;
    };
    if (closed) {
      for (const rolled of await this.repo.rolledDim(dim, this.timeZone(), closed[0], closed[1])) {
        const target = row(rolled.name);
        for (const key of ['visitors', 'visits', 'conversations', 'messages', 'rated', 'scoreSum'] as const) target[key] += rolled[key];
      }
    }
    if (open) {
      const [visits, talks] = await Promise.all([this.repo.flowByDim(dim, open), this.repo.talkByDim(dim, open)]);
      for (const visit of visits) {
        const target = row(visit.name);
        target.visitors += visit.visitors;
        target.visits += visit.visits;
      }
      for (const talk of talks) {
        const target = row(talk.name);
        target.conversations += talk.conversations;
        target.messages += talk.messages;
        target.rated += talk.rated;
        target.scoreSum += talk.scoreSum;
      }
    }
    return [...rows.values()];
  }

  private spanOf(first: string, last: string): Span {
    const zone = this.timeZone();
    return { from: dayBounds(first, zone).from, before: new Date(Date.parse(dayBounds(last, zone).to) + 1).toISOString() };
  }

  /** The median first response of each day of the range. */
  private async firstResponseByDay(range: Range): Promise<Map<string, number>> {
    const { open } = this.split(range.period.from, range.period.to);
    const [counts, live] = await Promise.all([
      this.valueCounts('first_response', range.period.from, range.period.to, 'days'),
      open ? this.repo.firstResponseByDay(open, range.period.timeZone) : new Map<string, number>(),
    ]);
    if (!counts) return live;
    const medians = new Map<string, number>();
    const byDay = histograms(counts, (row) => (row.agent === '' && !live.has(row.day) ? row.day : undefined));
    for (const [day, histogram] of byDay) {
      const median = medianOf(histogram);
      if (median !== null) medians.set(day, median);
    }
    for (const [day, median] of live) medians.set(day, median);
    return medians;
  }

  /** Counts the closed days of the range and the period before it into the rollup where missing. */
  private async fill(range: Range): Promise<void> {
    const { closed } = this.split(range.before[0], range.period.to);
    if (closed) await this.repo.fillDays(range.period.timeZone, closed[0], closed[1]);
  }

  /** What the traffic and conversation pages both read: the dimension's rows, the days, and both periods' totals. */
  private async byDimension(dim: CensusTalkDim, from?: string, to?: string) {
    const range = this.range(from, to);
    await this.fill(range);
    const [dims, trend, totals, previous] = await Promise.all([
      // Labels are the conversations' own, read live over the whole range; the rest is rolled up by day.
      dim === 'label'
        ? this.repo.talkByLabel(range.span)
        : dim === 'channel'
          ? this.repo.talkByChannel(range.span)
          : this.dimRows(dim, range.period.from, range.period.to),
      this.dayFigures(range.period.from, range.period.to),
      this.totals(range.period.from, range.period.to),
      this.totals(range.before[0], range.before[1]),
    ]);
    return { range, dims, trend, totals, previous };
  }

  async flow(dim: CensusDim, from?: string, to?: string): Promise<CensusFlow> {
    const { range, dims, trend, totals, previous } = await this.byDimension(dim, from, to);
    const rows = new Map<string, { name: string; visitors: number; visits: number; conversations: number }>();
    for (const found of dims) {
      if (found.visits === 0 && found.conversations === 0) continue;
      const name = nameOf(dim, found.name);
      const target = rows.get(name) ?? { name, visitors: 0, visits: 0, conversations: 0 };
      target.visitors += found.visitors;
      target.visits += found.visits;
      target.conversations += found.conversations;
      rows.set(name, target);
    }
    return {
      list: [...rows.values()].sort((a, b) => b.visitors - a.visitors || b.visits - a.visits || a.name.localeCompare(b.name)),
      trend: range.days.map((day) => ({ day, visitors: trend.get(day)?.visitors ?? 0, visits: trend.get(day)?.visits ?? 0 })),
      period: range.period,
      totals: { visitors: totals.visitors, visits: totals.visits, conversations: totals.conversations },
      previous: { visitors: previous.visitors, visits: previous.visits, conversations: previous.conversations },
    };
  }

  async talk(dim: CensusTalkDim, from?: string, to?: string): Promise<CensusTalk> {
    const { range, dims, trend, totals, previous } = await this.byDimension(dim, from, to);
    const rows = new Map<string, { name: string; conversations: number; messages: number; rated: number; scoreSum: number }>();
    for (const found of dims) {
      if (found.conversations === 0) continue;
      const name = nameOf(dim, found.name);
      const target = rows.get(name) ?? { name, conversations: 0, messages: 0, rated: 0, scoreSum: 0 };
      target.conversations += found.conversations;
      target.messages += found.messages;
      target.rated += found.rated;
      target.scoreSum += found.scoreSum;
      rows.set(name, target);
    }
    const figures = (t: Totals) => ({
      conversations: t.conversations,
      messages: t.messages,
      rated: t.rated,
      averageScore: average(t.scoreSum, t.rated),
    });
    return {
      list: [...rows.values()]
        .sort((a, b) => b.conversations - a.conversations || a.name.localeCompare(b.name))
        .map(({ scoreSum, ...rest }) => ({ ...rest, averageScore: average(scoreSum, rest.rated) })),
      trend: range.days.map((day) => ({ day, conversations: trend.get(day)?.conversations ?? 0 })),
      period: range.period,
      totals: figures(totals),
      previous: figures(previous),
    };
  }

  /** `serviceID` narrows the rating comments (`kind=evaluate`) to one agent's. */
  async service(kind: CensusServiceKind, from?: string, to?: string, serviceID?: string): Promise<CensusServiceAnswer> {
    const range = this.range(from, to);
    const agents = await this.repo.agents(AgentPresenceStore.freshSince());
    if (kind === 'talk') {
      await this.fill(range);
      const [firstResponses, durations, counted] = await Promise.all([
        this.valueCounts('first_response', range.period.from, range.period.to, 'agents'),
        this.valueCounts('duration', range.period.from, range.period.to, 'agents'),
        this.agentCounts(range),
      ]);
      const figures = await this.repo.serviceTalk(range.span, !firstResponses, counted);
      if (firstResponses && durations) {
        // Where closed days are in the range the medians come from their counted values (to the second, ten for lengths).
        const byAgent = (row: ValueCount) => row.agent || undefined;
        const first = histograms(firstResponses, byAgent);
        const length = histograms(durations, byAgent);
        for (const [uuid, row] of figures) {
          row.firstResponseMs = medianOf(first.get(uuid) ?? new Map());
          row.durationMs = medianOf(length.get(uuid) ?? new Map());
        }
      }
      const list = agents
        .filter((agent) => !agent.disabled || figures.has(agent.uuid))
        .map((agent) => ({
          serviceID: agent.uuid,
          nickname: agent.nickname,
          conversations: 0,
          messages: 0,
          firstResponseMs: null,
          durationMs: null,
          transfers: 0,
          ...figures.get(agent.uuid),
        }))
        .sort((a, b) => b.conversations - a.conversations);
      return { kind, list, period: range.period };
    }
    if (kind === 'evaluate') {
      const [rows, commented] = await Promise.all([
        this.repo.serviceEvaluate(range.span),
        this.repo.ratingComments(range.span, CENSUS_COMMENTS_LIMIT, serviceID),
      ]);
      const empty = (): CensusScores => ({ 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 });
      const byAgent = new Map<string, CensusScores>();
      const overall = empty();
      for (const row of rows) {
        if (row.score < 1 || row.score > 5) continue;
        const score = row.score as keyof CensusScores;
        const scores = byAgent.get(row.serviceID) ?? empty();
        scores[score] += row.n;
        byAgent.set(row.serviceID, scores);
        overall[score] += row.n;
      }
      const summary = (scores: CensusScores) => {
        const rated = scores[1] + scores[2] + scores[3] + scores[4] + scores[5];
        const sum = scores[1] + 2 * scores[2] + 3 * scores[3] + 4 * scores[4] + 5 * scores[5];
        return { rated, averageScore: average(sum, rated), scores };
      };
      const list = agents
        .filter((agent) => !agent.disabled || byAgent.has(agent.uuid))
        .map((agent) => ({ serviceID: agent.uuid, nickname: agent.nickname, ...summary(byAgent.get(agent.uuid) ?? empty()) }))
        .sort((a, b) => b.rated - a.rated);
      const comments = commented.map((row) => ({
        conversationId: row.id,
        score: Number(row.score),
        comment: row.comment,
        serviceID: row.service_id ?? '',
        agentNickname: row.agent_nickname ?? '',
        visitorNickname: visitorNickname({ id: row.visitor_id, name: row.visitor_name }),
        startedAt: row.started_at,
      }));
      return { kind, list, overall: summary(overall), comments, period: range.period };
    }
    // Time counts only up to now: the rest of today has not happened yet.
    const end = Math.min(Date.parse(range.span.before), this.now());
    const start = Date.parse(range.span.from);
    const spent = new Map<string, { online: number; hidden: number; offline: number }>();
    if (end > start) {
      const within: Span = { from: range.span.from, before: new Date(end).toISOString() };
      const [before, changes] = await Promise.all([this.repo.statesBefore(range.span.from), this.repo.statesWithin(within)]);
      const current = new Map<string, { state: string; since: number }>();
      const add = (uuid: string, state: string, ms: number) => {
        const sums = spent.get(uuid) ?? { online: 0, hidden: 0, offline: 0 };
        if (state === 'online' || state === 'hidden' || state === 'offline') sums[state] += ms;
        spent.set(uuid, sums);
      };
      for (const agent of agents) current.set(agent.uuid, { state: before.get(agent.uuid) ?? 'offline', since: start });
      for (const change of changes) {
        const at = Date.parse(change.at);
        const was = current.get(change.agent_uuid);
        if (was) add(change.agent_uuid, was.state, at - was.since);
        current.set(change.agent_uuid, { state: change.state, since: at });
      }
      for (const [uuid, was] of current) add(uuid, was.state, end - was.since);
    }
    const list = agents
      .filter((agent) => !agent.disabled)
      .map((agent) => {
        const sums = spent.get(agent.uuid) ?? { online: 0, hidden: 0, offline: 0 };
        return {
          serviceID: agent.uuid,
          nickname: agent.nickname,
          onlineMs: sums.online,
          hiddenMs: sums.hidden,
          offlineMs: sums.offline,
          now: censusState(agent.state === '1' ? '1' : '0', Boolean(agent.present)),
        };
      });
    return { kind, list, period: range.period };
  }

  async overview(from?: string, to?: string): Promise<CensusOverview> {
    const range = this.range(from, to);
    const zone = range.period.timeZone;
    await this.fill(range);
    const today = dayOf(this.now(), zone);
    const [todayTotals, rangeTotals, previousTotals, days, medians, agents] = await Promise.all([
      this.totals(today, today, true),
      this.totals(range.period.from, range.period.to, true),
      this.totals(range.before[0], range.before[1], true),
      this.dayFigures(range.period.from, range.period.to),
      this.firstResponseByDay(range),
      this.repo.agents(AgentPresenceStore.freshSince()),
    ]);
    const figures = (t: Totals): CensusFigures => ({
      visitors: t.visitors,
      conversations: t.conversations,
      conversion: t.visitors > 0 ? Math.round((t.talkers / t.visitors) * 10_000) / 10_000 : null,
      firstResponseMs: t.firstResponseMs,
      averageScore: average(t.scoreSum, t.rated),
    });
    const enabled = agents.filter((agent) => !agent.disabled);
    return {
      period: range.period,
      today: figures(todayTotals),
      range: figures(rangeTotals),
      previous: figures(previousTotals),
      agentsOnline: enabled.filter((agent) => agent.present && agent.state !== '1').length,
      agentsTotal: enabled.length,
      trend: range.days.map((day) => {
        const found = days.get(day);
        return {
          day,
          visitors: found?.visitors ?? 0,
          conversations: found?.conversations ?? 0,
          firstResponseMs: medians.get(day) ?? null,
          averageScore: found && found.conversations > 0 ? average(found.scoreSum, found.rated) : null,
        };
      }),
    };
  }
}
