import MiniSearch from 'minisearch';

/** A pair as the matcher knows it: only enabled pairs are handed in. */
export interface MatchablePair {
  id: number;
  questions: string[];
  answer: string;
  image: string;
}

export interface Match {
  id: number;
  /** The stored phrasing that came closest. */
  question: string;
  answer: string;
  image: string;
  /** 0..1: the share of the two texts' weighted words they have in common. */
  score: number;
}

export interface MatchResult {
  /** The closest pair when its score reaches the threshold, else null. */
  best: Match | null;
  /** The next closest pairs (or the closest ones when none reached the threshold), best first. */
  suggestions: Match[];
}

const segmenter = new Intl.Segmenter('zh', { granularity: 'word' });
const HAN = /\p{Script=Han}/u;
const LATIN_WORD = /^[a-z]+$/;

/**
 * Words that carry the shape of a question rather than its subject. Ranking already weighs them down by
 * how common they are; dropping them keeps the 0..1 score from being lifted by "how do I" alone.
 */
const STOP_WORDS = new Set([
  ...'a an the i me my we our you your it its is are was were be been am do does did can could would should will shall may might must to of in on at for from by with about as and or if so this that these those what which who whom how when where why there here please hi hello any some get got'.split(
    ' ',
  ),
  ...'我 我们 你 你们 您 的 了 吗 呢 啊 吧 呀 么 是 在 有 请 请问 问 问下 一下 怎么 怎样 怎么样 如何 什么 哪里 哪儿 可以 能 能否 能不能 可不可以 要 想 我想 需要 应该 该 这个 那个 这 那 和 与 还 就 都 也 会 吗'.split(
    ' ',
  ),
]);

/** Full-width forms to half-width (NFKC), lower case, punctuation and symbols to spaces. */
export function normalize(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A light English suffix stemmer: enough for "refunds", "refunded" and "refunding" to meet "refund".
 * Short words are left alone, so "bus" or "was" keep their letters.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !LATIN_WORD.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  for (const suffix of ['ing', 'ed']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length);
      // shipping → shipp → ship; but keep "ll" and "ss" (billing → bill, passed → pass).
      if (/([^aeioulsz])\1$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

/**
 * The terms of a text, for Chinese and English alike: words by the segmenter's dictionary, English words
 * stemmed, question-shape words dropped (unless nothing else is left), and for each run of Chinese
 * characters its character bigrams too, which meet a phrasing the segmenter happened to cut differently.
 */
export function tokenize(text: string): string[] {
  const words: string[] = [];
  const hanRuns: string[] = [];
  let run = '';
  for (const part of segmenter.segment(normalize(text))) {
    if (!part.isWordLike) {
      if (run) hanRuns.push(run);
      run = '';
      continue;
    }
    const word = part.segment;
    if (HAN.test(word)) {
      run += word;
    } else {
      if (run) hanRuns.push(run);
      run = '';
    }
    words.push(HAN.test(word) ? word : stem(word));
  }
  if (run) hanRuns.push(run);
  const kept = words.filter((word) => !STOP_WORDS.has(word));
  const terms = kept.length > 0 ? kept : words;
  const seen = new Set(terms);
  for (const han of hanRuns) {
    const chars = [...han];
    for (let at = 0; at + 1 < chars.length; at += 1) {
      const bigram = `${chars[at]}${chars[at + 1]}`;
      if (!seen.has(bigram) && !STOP_WORDS.has(bigram)) {
        seen.add(bigram);
        terms.push(bigram);
      }
    }
  }
  return terms;
}

interface Phrasing {
  id: number;
  pair: MatchablePair;
  question: string;
  terms: Set<string>;
  /** The sum of the squared weights of its terms (for the cosine). */
  norm: number;
}

/** How many stored phrasings the ranked retrieval hands over for scoring. */
const CANDIDATES = 30;

/**
 * The knowledge base's search index: every phrasing of every pair, ranked by BM25 (MiniSearch), the
 * candidates then scored by the cosine of their IDF-weighted terms. BM25 alone is unbounded and depends on
 * the collection; the cosine is 0..1 (1 for the same words), which is what a threshold can mean.
 */
export class Matcher {
  private readonly index = new MiniSearch<{ id: number; text: string }>({
    fields: ['text'],
    idField: 'id',
    tokenize,
    // tokenize has already normalised every term.
    processTerm: (term) => term,
    searchOptions: { combineWith: 'OR' },
  });
  private readonly phrasings: Phrasing[] = [];
  private readonly documentFrequency = new Map<string, number>();

  constructor(pairs: Iterable<MatchablePair>) {
    const documents: { id: number; text: string }[] = [];
    for (const pair of pairs) {
      for (const question of pair.questions) {
        const terms = new Set(tokenize(question));
        if (terms.size === 0) continue;
        const id = this.phrasings.length;
        this.phrasings.push({ id, pair, question, terms, norm: 0 });
        for (const term of terms) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
        documents.push({ id, text: question });
      }
    }
    for (const phrasing of this.phrasings) {
      let norm = 0;
      for (const term of phrasing.terms) norm += this.weight(term) ** 2;
      phrasing.norm = norm;
    }
    this.index.addAll(documents);
  }

  get size(): number {
    return this.phrasings.length;
  }

  /** Inverse document frequency, smoothed; a word the index never saw weighs like the rarest. */
  private weight(term: string): number {
    const n = this.phrasings.length;
    const df = this.documentFrequency.get(term) ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /**
   * The closest pair to `text` if its score reaches `threshold`, and up to `suggestions` other pairs
   * (each pair once, by its closest phrasing), best first.
   */
  match(text: string, threshold: number, suggestions = 3): MatchResult {
    const terms = new Set(tokenize(text));
    if (terms.size === 0 || this.phrasings.length === 0) return { best: null, suggestions: [] };
    let queryNorm = 0;
    for (const term of terms) queryNorm += this.weight(term) ** 2;
    const hits = this.index.search(text).slice(0, CANDIDATES);
    const byPair = new Map<number, { match: Match; rank: number }>();
    for (const hit of hits) {
      const phrasing = this.phrasings[hit.id as number];
      if (!phrasing) continue;
      let shared = 0;
      for (const term of terms) if (phrasing.terms.has(term)) shared += this.weight(term) ** 2;
      const score = shared === 0 ? 0 : shared / Math.sqrt(queryNorm * phrasing.norm);
      const current = byPair.get(phrasing.pair.id);
      if (current && current.match.score >= score) continue;
      const { id, answer, image } = phrasing.pair;
      byPair.set(id, { match: { id, question: phrasing.question, answer, image, score: round(score) }, rank: hit.score });
    }
    const ranked = [...byPair.values()]
      .filter((entry) => entry.match.score > 0)
      .sort((a, b) => b.match.score - a.match.score || b.rank - a.rank)
      .map((entry) => entry.match);
    const first = ranked[0];
    if (first && first.score >= threshold) return { best: first, suggestions: ranked.slice(1, 1 + suggestions) };
    return { best: null, suggestions: ranked.slice(0, suggestions) };
  }
}

const round = (score: number) => Math.round(Math.min(1, score) * 1000) / 1000;
