import { z } from 'zod';
import { endpointGroup, returns } from './endpoint.js';

// The statistics of CONTRACT §9 (`/census` and its analysis pages), all behind seePermissions:statistics.

/** What the traffic and conversation pages group by (seed §2: /flow/<dim>, /talk/<dim>). */
export const CENSUS_DIMS = ['source', 'engine', 'area', 'keyword', 'platform'] as const;
export type CensusDim = (typeof CENSUS_DIMS)[number];

/** The agent pages (/service/talk, /service/evaluate, /service/state). */
export const CENSUS_SERVICE_KINDS = ['talk', 'evaluate', 'state'] as const;
export type CensusServiceKind = (typeof CENSUS_SERVICE_KINDS)[number];

/** The longest range one call covers: a year and a day, so "last 365 days" and a leap year both fit. */
export const MAX_CENSUS_DAYS = 366;
/** The range when the caller names none: the last seven days, today included. */
export const DEFAULT_CENSUS_DAYS = 7;

const day = z.iso.date();

/**
 * Days in the site's time zone (CONTRACT §7), both ends included; `to` defaults to today and `from` to
 * `DEFAULT_CENSUS_DAYS` days ending at `to`. The server refuses `from` after `to` and ranges longer
 * than `MAX_CENSUS_DAYS`, naming the field.
 */
export const censusRange = z.object({ from: day.optional(), to: day.optional() });

/** `format=csv` answers the same list as `text/csv; charset=utf-8` with a BOM instead of the envelope. */
export const censusFormat = z.enum(['json', 'csv']).default('json');

export const censusDimQuery = censusRange.extend({ dim: z.enum(CENSUS_DIMS), format: censusFormat });
/**
 * The conversation page also groups by `label`: the conversations begun in the range that carry each
 * label now (one conversation counts under each of its labels; unlabelled ones are left out); and by
 * `channel`: the conversations begun in the range by their visitor's channel (`web`, `officialAccount`,
 * `miniProgram`).
 */
export const CENSUS_TALK_DIMS = [...CENSUS_DIMS, 'label', 'channel'] as const;
export type CensusTalkDim = (typeof CENSUS_TALK_DIMS)[number];
export const censusTalkQuery = censusRange.extend({ dim: z.enum(CENSUS_TALK_DIMS), format: censusFormat });
/** How many of the range's latest rating comments `kind=evaluate` answers. */
export const CENSUS_COMMENTS_LIMIT = 50;

export const censusServiceQuery = censusRange.extend({
  kind: z.enum(CENSUS_SERVICE_KINDS),
  format: censusFormat,
  /** `kind=evaluate`: only this agent's comments (the figures stay every agent's). */
  serviceID: z.string().min(1).max(64).optional(),
});
export const censusOverviewQuery = censusRange;

/** The range a figure covers, as answered (defaults filled in): days in the site's zone. */
export interface CensusPeriod {
  from: string;
  to: string;
  /** The site's IANA zone the days are counted in. */
  timeZone: string;
}

// ——— Traffic (`/flow/<dim>`) ———

/**
 * One value of the dimension. `name` is `''` where nothing was recorded (no search engine, no keyword,
 * a private address); the console labels it. `visitors` counts distinct visitors with a visit in the
 * range, `visits` their page visits, `conversations` the conversations they began in it.
 */
export interface CensusFlowRow {
  name: string;
  visitors: number;
  visits: number;
  conversations: number;
}

export interface CensusFlowTotals {
  visitors: number;
  visits: number;
  conversations: number;
}

export interface CensusFlow {
  list: CensusFlowRow[];
  /** Every day of the range in order, zeros included. */
  trend: { day: string; visitors: number; visits: number }[];
  period: CensusPeriod;
  totals: CensusFlowTotals;
  /** The same totals over the period of equal length just before. */
  previous: CensusFlowTotals;
}

// ——— Conversations (`/talk/<dim>`) ———

/** Conversations begun in the range, grouped by their visitor's dimension; `averageScore` null when none rated. */
export interface CensusTalkRow {
  name: string;
  conversations: number;
  messages: number;
  rated: number;
  averageScore: number | null;
}

export interface CensusTalkTotals {
  conversations: number;
  messages: number;
  rated: number;
  averageScore: number | null;
}

export interface CensusTalk {
  list: CensusTalkRow[];
  trend: { day: string; conversations: number }[];
  period: CensusPeriod;
  totals: CensusTalkTotals;
  previous: CensusTalkTotals;
}

// ——— Agents (`/service/<kind>`) ———

/**
 * Conversations an agent took in the range. `firstResponseMs` is the median time from the visitor's
 * first message to the agent's first answer, `durationMs` the median length of the ended ones (null
 * when there is none to measure); `transfers` counts the conversations the agent handed on.
 */
export interface CensusServiceTalkRow {
  serviceID: string;
  nickname: string;
  conversations: number;
  messages: number;
  firstResponseMs: number | null;
  durationMs: number | null;
  transfers: number;
}

export type CensusScores = { 1: number; 2: number; 3: number; 4: number; 5: number };

export interface CensusServiceEvaluateRow {
  serviceID: string;
  nickname: string;
  rated: number;
  averageScore: number | null;
  scores: CensusScores;
}

export type CensusAgentState = 'online' | 'hidden' | 'offline';

/**
 * Time in each state within the range (an interval crossing an edge counts its part inside; the time
 * before an agent's first recorded change is offline). `now` is the agent's state at the moment of the
 * call: online or hidden while a console is connected, else offline.
 */
export interface CensusServiceStateRow {
  serviceID: string;
  nickname: string;
  onlineMs: number;
  hiddenMs: number;
  offlineMs: number;
  now: CensusAgentState;
}

export interface CensusServiceTalk {
  kind: 'talk';
  list: CensusServiceTalkRow[];
  period: CensusPeriod;
}

/** A rating a visitor left with words, as the conversation it closed (visitor text: show it as text). */
export interface CensusRatingComment {
  conversationId: number;
  score: number;
  comment: string;
  /** `''` (and `agentNickname` `''`) for a conversation no agent took. */
  serviceID: string;
  agentNickname: string;
  visitorNickname: string;
  /** When the conversation began: the range counts conversations by it. */
  startedAt: string;
}

export interface CensusServiceEvaluate {
  kind: 'evaluate';
  list: CensusServiceEvaluateRow[];
  /** Over every rated conversation of the range, whoever took it. */
  overall: { rated: number; averageScore: number | null; scores: CensusScores };
  /** The latest `CENSUS_COMMENTS_LIMIT` ratings with a comment in the range, newest first (one agent's with `serviceID`). */
  comments: CensusRatingComment[];
  period: CensusPeriod;
}

export interface CensusServiceState {
  kind: 'state';
  list: CensusServiceStateRow[];
  period: CensusPeriod;
}

export type CensusService = CensusServiceTalk | CensusServiceEvaluate | CensusServiceState;

// ——— Overview (`/census`) ———

/** The overview's figures for one span of time. */
export interface CensusFigures {
  visitors: number;
  conversations: number;
  /** Visitors who began a conversation, over visitors (0..1); null with no visitors. */
  conversion: number | null;
  /** Median time to an agent's first answer, over the conversations that had one. */
  firstResponseMs: number | null;
  averageScore: number | null;
}

export interface CensusOverview {
  period: CensusPeriod;
  today: CensusFigures;
  /** The range asked for, and the period of equal length before it. */
  range: CensusFigures;
  previous: CensusFigures;
  /** Agents with a console connected now, online (not hidden) and in all. */
  agentsOnline: number;
  agentsTotal: number;
  trend: { day: string; visitors: number; conversations: number; firstResponseMs: number | null; averageScore: number | null }[];
}

export const censusEndpoints = endpointGroup({
  /** With `format=csv` the list as CSV (`raw`), else the envelope. */
  'GET /api/census/flow': { query: censusDimQuery, response: returns<CensusFlow>() },
  'GET /api/census/talk': { query: censusTalkQuery, response: returns<CensusTalk>() },
  'GET /api/census/service': { query: censusServiceQuery, response: returns<CensusService>() },
  'GET /api/census/overview': { query: censusOverviewQuery, response: returns<CensusOverview>() },
});
