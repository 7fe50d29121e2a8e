// The question-answer robot on knowledge bases and visitor questions it was never tuned on, through the
// real server: each knowledge base of a set (bench/robot-eval/heldout.json or dev.json) is stored with
// `POST /api/robot/ask/doEdit` on a fresh server, alone (the previous one deleted first), then each of its
// visitor paraphrases and off-topic questions is put to `POST /api/robot/try`, at the smart robot's
// threshold (the default one, or `--threshold`, saved with `POST /api/robot/high` first).
//
// Reports per set and per language: right (the labelled pair answered), wrong (another pair answered),
// unsure (no answer), off-topic questions answered, and the p50/p99 latency of /try. Before any of that it
// checks the set's own rules: no paraphrase repeats a stored phrasing, and how many share wording with
// one (see `overlap`); `--check` stops there, without a server.
//
// heldout.json is frozen: it is measured, never tuned on; its misses are never turned into stored
// phrasings. dev.json is the one to look at misses in (`--verbose`).
//
//   node bench/robot-eval.mjs --set heldout|dev [--threshold 0.05] [--verbose] [--check] [--json]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { api } from './client.mjs';
import { ADMIN_PASSWORD, startServer } from './server.mjs';

const { values } = parseArgs({
  options: {
    set: { type: 'string', default: 'heldout' },
    threshold: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    check: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
if (!['heldout', 'dev'].includes(values.set)) throw new Error('--set is heldout or dev');
const set = JSON.parse(readFileSync(new URL(`./robot-eval/${values.set}.json`, import.meta.url), 'utf8'));
const log = values.json ? () => {} : console.log;

// Words that shape a question rather than name its subject, left out of the wording comparison.
const EN_STOP = new Set(
  `a an the i i'm i'd me my mine we our you your yours it its is are was were be been am do does did done can could would
  should will shall may might must to of in on at for from by with about as and or if so this that these those what
  what's which who whom how when where why there there's here please hi hello any some get got want need like just
  not no don't can't won't isn't too also than then have has had up out over into after before again still much many
  there's it's one`.split(/\s+/),
);
const ZH_STOP_BIGRAMS = new Set(
  '怎么 么办 什么 可以 多少 一下 为什 怎样 如何 能不 不能 是不 不是 要不 不要 我的 你们 我们 有没 没有 一个 这个 那个 还是 还要 需要 吗？ 时候'.split(
    ' ',
  ),
);
const HAN = /\p{Script=Han}/u;

/** A crude stem: enough that "refunds", "refunded" and "refund" count as one word. */
function stem(word) {
  for (const suffix of ['ing', 'ed', 'es', 's']) {
    if (word.length - suffix.length >= 3 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

/**
 * The wording of a text: its Latin words (lower-cased, stemmed, stop-words left out) and its Chinese
 * character pairs (within runs of Han characters, the question-shaping ones left out). Two texts "share
 * wording" when these sets meet.
 */
function wording(text) {
  const units = new Set();
  for (const word of text.toLowerCase().match(/[a-z0-9]+(?:'[a-z]+)?/g) ?? []) {
    if (!EN_STOP.has(word) && !/^\d+$/.test(word)) units.add(stem(word));
  }
  for (const run of text.match(/\p{Script=Han}+/gu) ?? []) {
    for (let at = 0; at + 1 < run.length; at += 1) {
      const pair = run.slice(at, at + 2);
      if (HAN.test(pair) && !ZH_STOP_BIGRAMS.has(pair)) units.add(pair);
    }
  }
  return units;
}

const shared = (a, b) => [...a].filter((unit) => b.has(unit));

/** Checks the set's shape and rules, and measures how much of the paraphrases' wording the stored phrasings have. */
function overlap() {
  const kbs = new Map(set.kbs.map((kb) => [kb.id, kb]));
  const stored = new Set(set.kbs.flatMap((kb) => kb.pairs.flatMap((pair) => pair.questions.map((q) => q.trim().toLowerCase()))));
  const problems = [];
  for (const p of set.paraphrases) {
    if (!kbs.get(p.kb)?.pairs.some((pair) => pair.id === p.pairId)) problems.push(`no pair ${p.kb}/${p.pairId}: ${p.text}`);
  }
  for (const q of [...set.paraphrases, ...set.offTopic]) {
    if (stored.has(q.text.trim().toLowerCase())) problems.push(`a stored phrasing: ${q.text}`);
    if (!kbs.has(q.kb)) problems.push(`no knowledge base ${q.kb}: ${q.text}`);
    if (!['zh', 'en'].includes(q.lang)) problems.push(`lang ${q.lang}: ${q.text}`);
  }
  if (problems.length > 0) throw new Error(`the set breaks its rules:\n${problems.join('\n')}`);

  let withOwn = 0;
  let withBase = 0;
  let units = 0;
  let unitsInBase = 0;
  for (const p of set.paraphrases) {
    const kb = kbs.get(p.kb);
    const own = wording(kb.pairs.find((pair) => pair.id === p.pairId).questions.join(' '));
    const base = wording(kb.pairs.flatMap((pair) => pair.questions).join(' '));
    const mine = wording(p.text);
    const ownShared = shared(mine, own);
    const baseShared = shared(mine, base);
    if (ownShared.length > 0) {
      withOwn += 1;
      log(`  shares wording with its own pair: ${p.text} (${ownShared.join(', ')})`);
    }
    if (baseShared.length > 0) withBase += 1;
    units += mine.size;
    unitsInBase += baseShared.length;
  }
  const offWithBase = set.offTopic.filter((q) => {
    const base = wording(
      kbs
        .get(q.kb)
        .pairs.flatMap((pair) => pair.questions)
        .join(' '),
    );
    return shared(wording(q.text), base).length > 0;
  }).length;
  return { withOwn, withBase, units, unitsInBase, offWithBase };
}

const count = (list, lang) => list.filter((q) => !lang || q.lang === lang).length;
log(
  `${values.set}.json (frozen: ${set.frozen}): ${set.kbs.length} knowledge bases, ` +
    `${set.kbs.reduce((n, kb) => n + kb.pairs.length, 0)} pairs; ` +
    `${set.paraphrases.length} paraphrases (zh ${count(set.paraphrases, 'zh')}, en ${count(set.paraphrases, 'en')}); ` +
    `${set.offTopic.length} off-topic (zh ${count(set.offTopic, 'zh')}, en ${count(set.offTopic, 'en')})`,
);
for (const kb of set.kbs) {
  const mine = set.paraphrases.filter((p) => p.kb === kb.id);
  log(
    `  ${kb.id} (${kb.domain}): ${kb.pairs.length} pairs, ${kb.pairs.reduce((n, pair) => n + pair.questions.length, 0)} stored phrasings, ` +
      `${mine.length} paraphrases (zh ${count(mine, 'zh')}, en ${count(mine, 'en')}), ` +
      `${count(set.offTopic.filter((q) => q.kb === kb.id))} off-topic`,
  );
}
const words = overlap();
log(
  `wording: paraphrases sharing a word (en, stemmed) or a character pair (zh) with a stored phrasing of their own pair: ` +
    `${words.withOwn}/${set.paraphrases.length}; with any stored phrasing of their knowledge base: ${words.withBase}/${set.paraphrases.length} ` +
    `(${words.unitsInBase} of their ${words.units} words and character pairs); off-topic questions doing so: ${words.offWithBase}/${set.offTopic.length}`,
);
if (values.check) process.exit(0);

const percentile = (list, p) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

const server = await startServer();
const outcomes = [];
const latencies = [];
const selfCheck = { asked: 0, found: 0 };
let threshold;
try {
  const { url } = server;
  const token = (await api(url, '/api/login', { username: 'admin', password: ADMIN_PASSWORD })).token;
  const high = await api(url, '/api/robot/high', undefined, token);
  if (values.threshold !== undefined) {
    await api(url, '/api/robot/high', { ...high, threshold: Number(values.threshold) }, token);
  }
  threshold = (await api(url, '/api/robot/high', undefined, token)).threshold;

  const ask = async (text) => {
    const started = performance.now();
    const answer = await api(url, '/api/robot/try', { text }, token);
    latencies.push(performance.now() - started);
    return answer;
  };

  for (const kb of set.kbs) {
    // Only this knowledge base is stored while its questions are asked.
    for (;;) {
      const { list } = await api(url, '/api/robot/ask/getList?pageNo=1&pageSize=100', undefined, token);
      if (list.length === 0) break;
      await api(url, '/api/robot/ask/doDelete', { ids: list.map((pair) => pair.id) }, token);
    }
    const pairIdOf = new Map();
    for (const pair of kb.pairs) {
      const { id } = await api(
        url,
        '/api/robot/ask/doEdit',
        { questions: pair.questions, answer: pair.answer, category: kb.id, enabled: true },
        token,
      );
      pairIdOf.set(id, pair.id);
    }
    // One question builds the index after the change, as a site's first visitor after an edit would; it is
    // not counted, so that the latency is the answer's own.
    await api(url, '/api/robot/try', { text: kb.domain }, token);
    // The stored phrasings themselves must come back as their own pairs: a check on the import and on the
    // ids, not a figure (nor counted in the latency).
    for (const pair of kb.pairs) {
      for (const text of pair.questions) {
        const answer = await api(url, '/api/robot/try', { text }, token);
        selfCheck.asked += 1;
        if (answer && pairIdOf.get(answer.id) === pair.id) selfCheck.found += 1;
      }
    }

    for (const p of set.paraphrases.filter((q) => q.kb === kb.id)) {
      const answer = await ask(p.text);
      const got = answer ? pairIdOf.get(answer.id) : undefined;
      const outcome = answer === null ? 'unsure' : got === p.pairId ? 'right' : 'wrong';
      outcomes.push({ kind: 'paraphrase', kb: kb.id, lang: p.lang, outcome });
      if (values.verbose && outcome !== 'right') {
        const where = answer ? `${answer.question} (${answer.score.toFixed(2)})` : 'no answer';
        log(`  ${outcome}: [${kb.id} ${p.pairId}] ${p.text} → ${where}`);
      }
    }
    for (const q of set.offTopic.filter((off) => off.kb === kb.id)) {
      const answer = await ask(q.text);
      outcomes.push({ kind: 'offTopic', kb: kb.id, lang: q.lang, outcome: answer ? 'answered' : 'unsure' });
      if (values.verbose && answer) log(`  off-topic answered: [${kb.id}] ${q.text} → ${answer.question} (${answer.score.toFixed(2)})`);
    }
  }
} finally {
  await server.stop();
}

const pct = (n, of) => (of === 0 ? '–' : `${((100 * n) / of).toFixed(1)} %`);
function figures(filter) {
  const asked = outcomes.filter((o) => o.kind === 'paraphrase' && filter(o));
  const off = outcomes.filter((o) => o.kind === 'offTopic' && filter(o));
  const n = (outcome) => asked.filter((o) => o.outcome === outcome).length;
  return {
    paraphrases: asked.length,
    right: n('right'),
    wrong: n('wrong'),
    unsure: n('unsure'),
    offTopic: off.length,
    offTopicAnswered: off.filter((o) => o.outcome === 'answered').length,
  };
}
const rows = {
  all: figures(() => true),
  zh: figures((o) => o.lang === 'zh'),
  en: figures((o) => o.lang === 'en'),
  ...Object.fromEntries(set.kbs.map((kb) => [kb.id, figures((o) => o.kb === kb.id)])),
};
const latency = { p50: percentile(latencies, 50), p99: percentile(latencies, 99), n: latencies.length };
if (values.json) {
  console.log(JSON.stringify({ set: values.set, threshold, rows, latency, wording: words, selfCheck }));
} else {
  console.log(
    `${values.set} at threshold ${threshold} (stored phrasings answered as their own pair: ${selfCheck.found}/${selfCheck.asked}):`,
  );
  for (const [name, f] of Object.entries(rows)) {
    console.log(
      `  ${name.padEnd(10)} right ${pct(f.right, f.paraphrases)}, wrong ${pct(f.wrong, f.paraphrases)}, unsure ${pct(f.unsure, f.paraphrases)} ` +
        `of ${f.paraphrases}; off-topic answered ${f.offTopicAnswered}/${f.offTopic}`,
    );
  }
  console.log(`  /api/robot/try latency p50 ${latency.p50.toFixed(2)} ms, p99 ${latency.p99.toFixed(2)} ms (${latency.n} questions)`);
}
