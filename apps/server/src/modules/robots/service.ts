import type { Transform } from 'node:stream';
import {
  frame,
  type ListData,
  type RobotAsk,
  type RobotAssistFigures,
  type RobotHighAnswer,
  type RobotHighSettings,
  type RobotImportResult,
  type RobotQuestion,
  type RobotTryResult,
  robotAskEditBody,
  type robotAskListQuery,
  robotHighSettings,
  type robotQuestionListQuery,
  SocketCode,
} from '@parley/protocol';
import type { z } from 'zod';
import type { Db, DbOrTx } from '../../db/index.js';
import type { AuditActor, AuthContext } from '../../lib/caller.js';
import { ApiError, badRequest, notFound } from '../../lib/errors.js';
import { nextSlice } from '../../lib/heavy.js';
import { type Lang, translate } from '../../lib/i18n.js';
import { type OutboundClient, OutboundError } from '../../lib/outbound.js';
import { isoNow } from '../../lib/time.js';
import { parse, ValidationError } from '../../lib/validate.js';
import type { Bus } from '../../realtime/bus.js';
import type { EventHub } from '../../realtime/domain-events.js';
import { type AuditLog, changedFields } from '../audit/audit-log.js';
import type { SettingsRepository } from '../settings/repository.js';
import { salvage } from '../settings/salvage.js';
import { ROBOT_HIGH_KEY } from '../settings/secrets.js';
import { enabledCell, parseRobotCsv, robotCsv } from './csv.js';
import { type MatchablePair, Matcher, type MatchResult, normalize } from './matcher.js';
import { QuestionLog, questionKey } from './questions.js';
import type { RobotAskFilter, RobotAskRow, RobotRepository } from './repository.js';
import { type MeaningScorer, RemoteEmbeddings, SemanticScorer } from './semantic.js';

type EditBody = z.output<typeof robotAskEditBody>;

function view(row: RobotAskRow): RobotAsk {
  return {
    id: row.id,
    questions: row.questions.split('\n'),
    answer: row.answer,
    image: row.image,
    category: row.category,
    enabled: row.enabled === 1,
    hits: Number(row.hits),
    assists: Number(row.assists),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function filterOf(query: Omit<z.output<typeof robotAskListQuery>, 'pageNo' | 'pageSize'>): RobotAskFilter {
  return {
    keyword: query.keyword || undefined,
    category: query.category,
    enabled: query.enabled === undefined ? undefined : query.enabled === 'true',
  };
}

/** A change to more pairs than this rebuilds the index (and is told without ids) rather than updating it. */
const INCREMENTAL_LIMIT = 500;
/**
 * Rows of an import checked, and stored, per slice of the event loop (lib/heavy.ts); each stored chunk
 * is a transaction of its own, so that the database is never held for a whole import either.
 */
const IMPORT_CHECK_SLICE = 500;
const IMPORT_CHUNK = 200;
/** Pairs added to the index per slice while it is built: a few milliseconds. */
const INDEX_SLICE = 200;
/** How many pairs' meaning scores a question brings back to fuse with the lexical ones. */
const MEANING_CANDIDATES = 40;
/**
 * How long a question waits for the pairs' meaning vectors after a change (a few pairs take well under a
 * second); past it, it is answered by the lexical matcher alone while the vectors are computed.
 */
const MEANING_WAIT_MS = 3000;

function matchable(row: Pick<RobotAskRow, 'id' | 'questions' | 'answer' | 'image'>): MatchablePair {
  return { id: row.id, questions: row.questions.split('\n'), answer: row.answer, image: row.image };
}

/**
 * The robot's knowledge base and its settings. Each process keeps a search index of the enabled pairs in
 * memory, built on first use. A change anywhere (this process or another, through the bus) updates the
 * changed pairs in it, read again from the database; a change to many pairs drops it, and the next
 * question builds it again.
 */
export class RobotService {
  private matcher: Promise<Matcher> | null = null;
  private high: RobotHighSettings = robotHighSettings.parse({});
  /** Run once this process has read settings saved anywhere: open widgets learn whether the robot answers. */
  private readonly highListeners: (() => Promise<void>)[] = [];
  /** English questions' meaning scores from the built-in model (semantic.ts); null with ROBOT_SEMANTIC=off. */
  private readonly builtin: SemanticScorer | null;
  /** Meaning scores from the embeddings endpoint of the settings, while one is enabled (for the settings `key`). */
  private remote: { key: string; scorer: RemoteEmbeddings } | null = null;
  /** The questions visitors asked the robot in real chats, written in batches. */
  private readonly questions: QuestionLog;

  constructor(
    private readonly db: Db,
    private readonly repo: RobotRepository,
    private readonly settingsRepo: SettingsRepository,
    private readonly events: EventHub,
    private readonly bus: Bus,
    private readonly onError: (error: unknown) => void,
    private readonly outbound: OutboundClient,
    private readonly audit: AuditLog,
    semantic = true,
  ) {
    this.builtin = semantic ? new SemanticScorer(MEANING_WAIT_MS, onError) : null;
    this.questions = new QuestionLog(repo, onError);
    bus.subscribe((event) => {
      if (event.type !== 'robots.changed') return;
      if (event.what === 'pairs') this.pairsChanged(event.ids);
      else
        this.loadHigh()
          .then(() => Promise.all(this.highListeners.map((listener) => listener())))
          .catch(this.onError);
    });
  }

  onHighChanged(listener: () => Promise<void>): void {
    this.highListeners.push(listener);
  }

  /** Reads the stored smart-robot settings; called once before the server takes requests. */
  async load(): Promise<void> {
    await this.loadHigh();
  }

  async list(query: z.output<typeof robotAskListQuery>): Promise<ListData<RobotAsk>> {
    const { rows, total } = await this.repo.list(filterOf(query), query);
    return { list: rows.map(view), total };
  }

  /** Creates without an id, else replaces the pair's phrasings, answer and the rest; its hits stay. */
  async save(input: EditBody, _auth: AuthContext, who: AuditActor): Promise<{ id: number }> {
    const id = await this.db.transaction().execute(async (tx) => {
      const saved = await this.upsert(tx, input);
      // A question visitors asked that is now one of the pair's phrasings is answered: it leaves that list.
      await this.repo.answeredNow(tx, [...new Set(input.questions.map(questionKey))]);
      const action = input.id === undefined ? 'robot.pair.create' : 'robot.pair.update';
      const question = dedupe(input.questions)[0] ?? '';
      await this.audit.record(tx, { ...who, action, target: `robot.pair:${question}`, detail: { id: saved } });
      return saved;
    });
    await this.changed('pairs', [id]);
    return { id };
  }

  async remove(ids: number[], _auth: AuthContext, who: AuditActor): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const pairs = await this.repo.firstQuestions(tx, ids);
      await this.repo.deleteMany(tx, ids);
      await this.repo.forgetQuestionsOf(tx, ids);
      for (const pair of pairs) {
        await this.audit.record(tx, {
          ...who,
          action: 'robot.pair.delete',
          target: `robot.pair:${pair.first_question}`,
          detail: { id: pair.id },
        });
      }
    });
    await this.changed('pairs', ids);
  }

  private async upsert(db: DbOrTx, input: EditBody): Promise<number> {
    const fields = columnsOf(input);
    if (input.id === undefined) return this.repo.insert(db, { ...fields, created_at: fields.updated_at });
    const current = await this.repo.findById(db, input.id);
    if (!current) throw notFound('robotAskMissing');
    await this.repo.update(db, current.id, fields);
    return current.id;
  }

  /**
   * Stores the CSV's valid rows in one transaction and reports the others by line. A row whose first
   * phrasing is already a pair's first phrasing replaces that pair (an edited export comes back in place).
   */
  async importCsv(text: string, lang: Lang, who: AuditActor): Promise<RobotImportResult> {
    const rows = await parseRobotCsv(text);
    const result: RobotImportResult = { created: 0, updated: 0, errors: [] };
    const valid: EditBody[] = [];
    for (const [index, { line, cells }] of rows.entries()) {
      if (index % IMPORT_CHECK_SLICE === IMPORT_CHECK_SLICE - 1) await nextSlice();
      const enabled = enabledCell(cells.enabled);
      if (enabled === undefined) {
        result.errors.push({ line, message: translate(lang, 'robotImportEnabled') });
        continue;
      }
      const image = (cells.image ?? '').trim();
      try {
        valid.push(
          parse(robotAskEditBody, {
            questions: (cells.question ?? '')
              .split(/\r?\n/)
              .map((question) => question.trim())
              .filter((question) => question !== ''),
            answer: cells.answer ?? '',
            category: (cells.category ?? '').trim(),
            enabled,
            ...(image ? { image } : {}),
          }),
        );
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        result.errors.push({ line, message: error.localized(lang) });
      }
    }
    if (valid.length === 0) return result;
    const ids: number[] = [];
    const parts = Math.ceil(valid.length / IMPORT_CHUNK);
    try {
      for (let part = 1; part <= parts; part += 1) {
        await nextSlice();
        const chunk = valid.slice((part - 1) * IMPORT_CHUNK, part * IMPORT_CHUNK);
        // Each chunk's audit entry is written in its transaction: what it stored is what it records.
        const stored = await this.db.transaction().execute(async (tx) => {
          const counts = { created: 0, updated: 0 };
          // A few statements a chunk, not two a row: on PostgreSQL each is a round trip. Rows of one first
          // phrasing replace one another in file order, as they would one by one: the last one is stored.
          const byFirst = new Map<string, ReturnType<typeof columnsOf>>();
          for (const pair of chunk) {
            const row = columnsOf(pair);
            if (byFirst.has(row.first_question)) counts.updated += 1;
            byFirst.set(row.first_question, row);
          }
          const existing = await this.repo.idsByFirstQuestion(tx, [...byFirst.keys()]);
          const fresh: ReturnType<typeof columnsOf>[] = [];
          for (const [first, row] of byFirst) {
            const id = existing.get(first);
            if (id === undefined) {
              fresh.push(row);
              counts.created += 1;
              continue;
            }
            await this.repo.update(tx, id, row);
            ids.push(id);
            counts.updated += 1;
          }
          ids.push(
            ...(await this.repo.insertMany(
              tx,
              fresh.map((row) => ({ ...row, created_at: row.updated_at })),
            )),
          );
          const detail = { ...counts, rejected: result.errors.length, ...(parts > 1 ? { part, parts } : {}) };
          await this.audit.record(tx, { ...who, action: 'robot.pair.import', target: 'robot.pairs', detail });
          return counts;
        });
        result.created += stored.created;
        result.updated += stored.updated;
      }
    } finally {
      // The chunks stored before a failure are in the database: the index follows them too.
      await this.changed('pairs', ids);
    }
    return result;
  }

  exportCsv(query: Omit<z.output<typeof robotAskListQuery>, 'pageNo' | 'pageSize'>): Transform {
    const repo = this.repo;
    const filter = filterOf(query);
    async function* pages() {
      // A page per slice of the event loop (lib/heavy.ts), read only as fast as the client reads.
      for await (const rows of repo.pages(filter)) {
        yield rows.map(view);
        await nextSlice();
      }
    }
    return robotCsv(pages());
  }

  /**
   * The closest pair and the runners-up, with the smart robot's threshold: the lexical score fused with
   * the meaning score where the question is English. Never counts a hit.
   */
  async match(text: string): Promise<MatchResult> {
    const matcher = await this.index();
    let meaning: Map<number, number> | null = null;
    const scorer = this.meaningScorer();
    if (scorer && matcher.size > 0) {
      scorer.sync(matcher, matcher.generation, () => matcher.pairs());
      meaning = await scorer.scores(text, MEANING_CANDIDATES);
    }
    return matcher.match(text, this.high.threshold, 3, meaning ?? undefined);
  }

  /** The embeddings endpoint of the settings when one is enabled, else the built-in model. */
  private meaningScorer(): MeaningScorer | null {
    const endpoint = this.high.embeddings;
    if (!endpoint.enabled || endpoint.baseUrl === '') return this.builtin;
    const key = JSON.stringify(endpoint);
    if (this.remote?.key !== key) {
      this.remote?.scorer.stop();
      const post = (url: string, body: string, headers: Record<string, string>, timeoutMs: number, maxBytes: number) =>
        this.outbound.request(url, { method: 'POST', headers, body, timeoutMs, maxBytes });
      this.remote = { key, scorer: new RemoteEmbeddings(endpoint, post, this.onError) };
    }
    return this.remote.scorer;
  }

  /** Ends the meaning indexes and writes the questions still waiting (the server is closing). */
  async close(): Promise<void> {
    this.builtin?.stop();
    this.remote?.scorer.stop();
    await this.questions.stop();
  }

  async try(text: string): Promise<RobotTryResult> {
    const { best, suggestions } = await this.match(text);
    return best ? { ...best, suggestions } : null;
  }

  /** Counts one answer the robot gave from this pair (the conversation flow calls it, `try` does not). */
  recordHit(id: number): Promise<void> {
    return this.repo.addHit(id);
  }

  /** Logs a question a visitor asked the robot in a chat and the pair that answered it (null: none); never waits. */
  noteQuestion(text: string, pairId: number | null): void {
    this.questions.note(text, pairId);
  }

  /** The questions that reached a pair, or with `pairId` 0 the unanswered ones. */
  async listQuestions(query: z.output<typeof robotQuestionListQuery>): Promise<ListData<RobotQuestion>> {
    // This process's pending questions first: what a visitor just asked is in the list.
    await this.questions.flush();
    const { rows, total } = await this.repo.questions(query.pairId, query);
    return {
      list: rows.map((row) => ({ id: row.id, text: row.text, pairId: row.pair_id, times: Number(row.times), last_at: row.last_at })),
      total,
    };
  }

  /** Sets unanswered questions aside for good (asking one again counts it, but it stays out of the list). */
  async dismissQuestions(ids: number[], who: AuditActor): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const listed = await this.repo.unansweredByIds(tx, ids);
      await this.repo.dismissQuestions(tx, ids);
      for (const question of listed) {
        await this.audit.record(tx, {
          ...who,
          action: 'robot.question.dismiss',
          target: `robot.question:${question.text}`,
          detail: { id: question.id },
        });
      }
    });
  }

  /**
   * Agent assist: a visitor's text message in a conversation an agent holds that matches a pair above the
   * threshold offers that pair's answer to the agent (8016), to that agent alone. Subscribed after the
   * notifier and run on the next turn of the event loop: the message is stored and on its way to the
   * agent before the matcher runs, and the send waits for none of it.
   */
  subscribeAssist(events: EventHub): void {
    events.on('message.stored', ({ visitor, message }) => {
      if (message.role !== 'user' || message.type !== 'text') return;
      const agent = visitor.state === 'current' ? visitor.service_id : null;
      if (!agent) return;
      setImmediate(() => {
        this.suggest(agent, visitor.public_id, message.onlyID, message.msg).catch(this.onError);
      });
    });
  }

  private async suggest(agent: string, publicId: string, onlyID: string, text: string): Promise<void> {
    const { best } = await this.match(text);
    if (!best) return;
    const assist = { YQToken: publicId, onlyID, pairId: best.id, question: best.question, answer: best.answer, score: best.score };
    await this.bus.publish({ type: 'frame.agents', to: [agent], frame: frame(SocketCode.assist, assist) });
  }

  /** An agent sent a message made from a suggested answer of this pair; counted after the send, never before. */
  assistUsed(pairId: number): void {
    this.repo.addAssist(pairId).catch(this.onError);
  }

  async assistFigures(): Promise<RobotAssistFigures> {
    return { used: await this.repo.assists() };
  }

  /** The smart-robot settings with their secret, for the server's own use. */
  currentHigh(): RobotHighSettings {
    return this.high;
  }

  /** The smart-robot settings as an agent may read them: each key answered as '', and whether one is stored. */
  getHigh(): RobotHighAnswer {
    const { llm, embeddings } = this.high;
    return {
      ...this.high,
      llm: { ...llm, apiKey: '', hasApiKey: llm.apiKey !== '' },
      embeddings: { ...embeddings, apiKey: '', hasApiKey: embeddings.apiKey !== '' },
    };
  }

  /**
   * Stores the whole settings. An empty API key keeps the stored one only while the model's URL stays the
   * same: a key is never sent to an address its owner did not see it go to. Only an Admin may point a
   * stored key at a new URL (a delegated robot manager could otherwise collect the Admin's key), and the
   * URL must be one the outbound rule lets the server reach.
   */
  async saveHigh(value: RobotHighSettings, by: { uuid: string; admin: boolean }, who: AuditActor): Promise<RobotHighAnswer> {
    const llm = await this.keyRule(value.llm, this.high.llm, by, 'llm.baseUrl');
    const embeddings = await this.keyRule(value.embeddings, this.high.embeddings, by, 'embeddings.baseUrl');
    const merged = robotHighSettings.parse({ ...value, llm, embeddings });
    // Field names only: a key shows as `llm.apiKey` or `embeddings.apiKey` when it changed, never as a value.
    const fields = changedFields(this.high, merged);
    await this.db.transaction().execute(async (tx) => {
      await this.settingsRepo.save(ROBOT_HIGH_KEY, JSON.stringify(merged), by.uuid, isoNow(), tx);
      if (fields.length > 0)
        await this.audit.record(tx, { ...who, action: 'robot.settings', target: 'robot.settings', detail: { fields } });
    });
    this.high = merged;
    await this.changed('high');
    return this.getHigh();
  }

  /** saveHigh's rule for one endpoint and its key (the language model's, the embeddings'). */
  private async keyRule<T extends { baseUrl: string; apiKey: string }>(
    value: T,
    stored: T,
    by: { admin: boolean },
    field: string,
  ): Promise<T> {
    const urlChanged = value.baseUrl !== stored.baseUrl;
    const apiKey = value.apiKey || (urlChanged ? '' : stored.apiKey);
    if (urlChanged && apiKey !== '' && !by.admin) throw new ApiError(403, 'modelKeyNeedsAdmin');
    if (urlChanged && value.baseUrl !== '') await this.checkModelUrl(value.baseUrl, field);
    return { ...value, apiKey };
  }

  /** A model URL the outbound rule refuses is refused when saved, not at the visitor's first question. */
  private async checkModelUrl(url: string, field: string): Promise<void> {
    try {
      await this.outbound.check(url);
    } catch (error) {
      if (error instanceof OutboundError) throw badRequest('outboundRefused', { field });
      throw error;
    }
  }

  private async loadHigh(): Promise<void> {
    const json = await this.settingsRepo.one(ROBOT_HIGH_KEY);
    if (json === undefined) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (error) {
      this.onError(error);
      return;
    }
    // Settings stored under looser rules keep what still passes (a model URL with a query is dropped, say).
    const result = salvage(robotHighSettings, parsed);
    if (!result) {
      this.onError(new Error('stored smart-robot settings are not valid; their defaults are used'));
      return;
    }
    if (result.dropped.length > 0)
      this.onError(new Error(`stored smart-robot settings break today's rules at ${result.dropped.join(', ')}; those values are left out`));
    this.high = result.value;
  }

  private index(): Promise<Matcher> {
    if (!this.matcher) this.keep(this.buildIndex());
    return this.matcher as Promise<Matcher>;
  }

  /**
   * The index of every enabled pair, read a page at a time and added a slice at a time: tens of thousands
   * of pairs are a second and more of work, which must not hold the event loop in one piece. A change
   * made meanwhile chains on the build (pairsChanged) and applies once it is done.
   */
  private async buildIndex(): Promise<Matcher> {
    const matcher = new Matcher([]);
    for await (const rows of this.repo.enabled(INDEX_SLICE)) {
      await nextSlice();
      for (const row of rows) matcher.add(matchable(row));
    }
    return matcher;
  }

  /** Makes `next` the index; one that fails is not kept, and the next question builds it again. */
  private keep(next: Promise<Matcher>): void {
    next.catch(() => {
      if (this.matcher === next) this.matcher = null;
    });
    this.matcher = next;
  }

  /**
   * The index follows a change: the named pairs are read again and added, replaced or dropped (a disabled
   * or deleted pair is dropped). Updates chain on the index's promise, so they apply in order and a
   * question waits for the ones before it. Without ids, or for many, the index is dropped instead.
   */
  private pairsChanged(ids: number[] | undefined): void {
    const current = this.matcher;
    if (!current) return;
    if (!ids || ids.length > INCREMENTAL_LIMIT) {
      this.matcher = null;
      return;
    }
    this.keep(
      current.then(async (matcher) => {
        const rows = ids.length > 0 ? await this.repo.byIds(ids) : [];
        const enabled = new Map(rows.filter((row) => row.enabled === 1).map((row) => [row.id, row]));
        for (const id of ids) {
          const row = enabled.get(id);
          if (row) matcher.add(matchable(row));
          else matcher.remove(id);
        }
        return matcher;
      }),
    );
  }

  private async changed(what: 'pairs' | 'high', ids?: number[]): Promise<void> {
    if (what === 'high') {
      await this.events.emit('robots.changed', { what });
      return;
    }
    const told = ids && ids.length <= INCREMENTAL_LIMIT ? ids : undefined;
    this.pairsChanged(told);
    await this.events.emit('robots.changed', { what, ...(told ? { ids: told } : {}) });
  }
}

/** The phrasings in their order, each once (compared as the matcher would read them). */
/** The stored columns of a pair as the edit form or an import row gives it. */
function columnsOf(input: EditBody) {
  const questions = dedupe(input.questions);
  return {
    questions: questions.join('\n'),
    first_question: questions[0] ?? '',
    answer: input.answer,
    image: input.image ?? '',
    category: input.category ?? '',
    enabled: input.enabled ? 1 : 0,
    updated_at: isoNow(),
  };
}

function dedupe(questions: string[]): string[] {
  const seen = new Set<string>();
  return questions.filter((question) => {
    const key = normalize(question);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
