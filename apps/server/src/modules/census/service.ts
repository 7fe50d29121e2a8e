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
  DEFAULT_CENSUS_DAYS,
  MAX_CENSUS_DAYS,
} from '@parley/protocol';
import { dayBounds, dayOf } from '../../lib/time.js';
import { ValidationError } from '../../lib/validate.js';
import { AgentPresenceStore } from '../../realtime/presence.js';
import { regionTree } from '../regions/tree.js';
import { visitorNickname } from '../visitors/views.js';
import { censusState } from './recorder.js';
import type { CensusRepository, Span } from './repository.js';

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
function nameOf(dim: CensusDim, key: string): string {
  if (dim !== 'area' || !/^\d{2}$/.test(key) || key === ABROAD_REGION_CODE.slice(0, 2)) return key;
  return provinceName(key);
}

interface Range {
  period: CensusPeriod;
  span: Span;
  previous: Span;
  days: string[];
}

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
    return { period: { from: first, to: last, timeZone: zone }, span, previous, days };
  }

  private spanOf(first: string, last: string): Span {
    const zone = this.timeZone();
    return { from: dayBounds(first, zone).from, before: new Date(Date.parse(dayBounds(last, zone).to) + 1).toISOString() };
  }

  async flow(dim: CensusDim, from?: string, to?: string): Promise<CensusFlow> {
    const range = this.range(from, to);
    const [visits, talks, trend, totals, previous] = await Promise.all([
      this.repo.flowByDim(dim, range.span),
      this.repo.talkByDim(dim, range.span),
      this.repo.visitsByDay(range.span, range.period.timeZone),
      this.repo.totals(range.span),
      this.repo.totals(range.previous),
    ]);
    const rows = new Map<string, { name: string; visitors: number; visits: number; conversations: number }>();
    const row = (key: string) => {
      const name = nameOf(dim, key);
      let found = rows.get(name);
      if (!found) {
        found = { name, visitors: 0, visits: 0, conversations: 0 };
        rows.set(name, found);
      }
      return found;
    };
    for (const visit of visits) {
      const target = row(visit.name);
      target.visitors += visit.visitors;
      target.visits += visit.visits;
    }
    for (const talk of talks) row(talk.name).conversations += talk.conversations;
    const byDay = new Map(trend.map((day) => [day.day, day]));
    return {
      list: [...rows.values()].sort((a, b) => b.visitors - a.visitors || b.visits - a.visits || a.name.localeCompare(b.name)),
      trend: range.days.map((day) => ({ day, visitors: byDay.get(day)?.visitors ?? 0, visits: byDay.get(day)?.visits ?? 0 })),
      period: range.period,
      totals: { visitors: totals.visitors, visits: totals.visits, conversations: totals.conversations },
      previous: { visitors: previous.visitors, visits: previous.visits, conversations: previous.conversations },
    };
  }

  async talk(dim: CensusDim, from?: string, to?: string): Promise<CensusTalk> {
    const range = this.range(from, to);
    const [talks, trend, totals, previous] = await Promise.all([
      this.repo.talkByDim(dim, range.span),
      this.repo.conversationsByDay(range.span, range.period.timeZone),
      this.repo.totals(range.span),
      this.repo.totals(range.previous),
    ]);
    const rows = new Map<string, { name: string; conversations: number; messages: number; rated: number; scoreSum: number }>();
    for (const talk of talks) {
      const name = nameOf(dim, talk.name);
      const found = rows.get(name) ?? { name, conversations: 0, messages: 0, rated: 0, scoreSum: 0 };
      found.conversations += talk.conversations;
      found.messages += talk.messages;
      found.rated += talk.rated;
      found.scoreSum += talk.scoreSum;
      rows.set(name, found);
    }
    const byDay = new Map(trend.map((day) => [day.day, day.conversations]));
    const figures = (t: typeof totals) => ({
      conversations: t.conversations,
      messages: t.messages,
      rated: t.rated,
      averageScore: average(t.scoreSum, t.rated),
    });
    return {
      list: [...rows.values()]
        .sort((a, b) => b.conversations - a.conversations || a.name.localeCompare(b.name))
        .map(({ scoreSum, ...rest }) => ({ ...rest, averageScore: average(scoreSum, rest.rated) })),
      trend: range.days.map((day) => ({ day, conversations: byDay.get(day) ?? 0 })),
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
      const figures = await this.repo.serviceTalk(range.span);
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
    const today = this.spanOf(dayOf(this.now(), zone), dayOf(this.now(), zone));
    const [todayTotals, rangeTotals, previousTotals, visits, talks, agents] = await Promise.all([
      this.repo.totals(today),
      this.repo.totals(range.span),
      this.repo.totals(range.previous),
      this.repo.visitsByDay(range.span, zone),
      this.repo.conversationsByDay(range.span, zone),
      this.repo.agents(AgentPresenceStore.freshSince()),
    ]);
    const figures = (t: typeof todayTotals): CensusFigures => ({
      visitors: t.visitors,
      conversations: t.conversations,
      conversion: t.visitors > 0 ? Math.round((t.talkers / t.visitors) * 10_000) / 10_000 : null,
      firstResponseMs: t.firstResponseMs,
      averageScore: average(t.scoreSum, t.rated),
    });
    const visitsByDay = new Map(visits.map((day) => [day.day, day.visitors]));
    const talksByDay = new Map(talks.map((day) => [day.day, day]));
    const enabled = agents.filter((agent) => !agent.disabled);
    return {
      period: range.period,
      today: figures(todayTotals),
      range: figures(rangeTotals),
      previous: figures(previousTotals),
      agentsOnline: enabled.filter((agent) => agent.present && agent.state !== '1').length,
      agentsTotal: enabled.length,
      trend: range.days.map((day) => {
        const talk = talksByDay.get(day);
        return {
          day,
          visitors: visitsByDay.get(day) ?? 0,
          conversations: talk?.conversations ?? 0,
          firstResponseMs: talk?.firstResponseMs ?? null,
          averageScore: talk ? average(talk.scoreSum, talk.rated) : null,
        };
      }),
    };
  }
}
