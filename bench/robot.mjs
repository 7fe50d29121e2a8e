// The robot's matcher on its paraphrase set: top-1 accuracy on the knowledge base of robot-kb.json, then
// answer latency with the base grown to N pairs by synthesised ones. Runs the server's own matcher module
// (bundled on the fly from apps/server/src/modules/robots/matcher.ts), without a server around it.
//
// A negative set (questions the knowledge base cannot answer) measures how often the robot would answer
// anyway, and a sweep over thresholds shows what each would do to right, wrong and unsure answers.
//
// `--semantic` then measures the meaning index (semantic.ts) at the same size: the time its worker takes to
// embed every pair, the process's memory after, and the latency of an English question through it and
// the matcher, as a server answers one.
//
//   node bench/robot.mjs [--pairs 5000] [--queries 5000] [--threshold 0.5] [--verbose] [--semantic]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const { values } = parseArgs({
  options: {
    pairs: { type: 'string', default: '5000' },
    queries: { type: 'string', default: '5000' },
    threshold: { type: 'string', default: '0.5' },
    verbose: { type: 'boolean', default: false },
    semantic: { type: 'boolean', default: false },
  },
});
const totalPairs = Number(values.pairs);
const queryCount = Number(values.queries);
const threshold = Number(values.threshold);

const bundled = await build({
  entryPoints: [fileURLToPath(new URL('../apps/server/src/modules/robots/matcher.ts', import.meta.url))],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  write: false,
  logLevel: 'warning',
});
const { Matcher } = await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`);

const { pairs, tests, negatives = [] } = JSON.parse(readFileSync(new URL('./robot-kb.json', import.meta.url), 'utf8'));
const asPair = (pair) => ({ id: pair.id, questions: pair.questions, answer: pair.answer, image: '' });

// A stored phrasing must never be a test question: the set measures paraphrases, not look-ups.
const stored = new Set(pairs.flatMap((pair) => pair.questions.map((q) => q.trim().toLowerCase())));
const copies = [...tests, ...negatives.map((text) => ({ text }))].filter((test) => stored.has(test.text.trim().toLowerCase()));
if (copies.length > 0) throw new Error(`test questions identical to stored phrasings: ${copies.map((t) => t.text).join(' | ')}`);

function accuracy(matcher, label) {
  let top1 = 0;
  let answeredRight = 0;
  let answeredWrong = 0;
  let inSuggestions = 0;
  for (const test of tests) {
    const { best, suggestions } = matcher.match(test.text, 0);
    const ranked = [best, ...suggestions].filter(Boolean);
    if (ranked[0]?.id === test.expect) top1 += 1;
    else {
      if (ranked.some((m) => m.id === test.expect)) inSuggestions += 1;
      if (values.verbose) console.log(`  miss: ${test.text} → ${ranked[0]?.question ?? '(nothing)'} (${ranked[0]?.score ?? 0})`);
    }
    const held = ranked[0] && ranked[0].score >= threshold ? ranked[0] : null;
    if (held?.id === test.expect) answeredRight += 1;
    else if (held) answeredWrong += 1;
  }
  const pct = (n, of = tests.length) => `${((100 * n) / of).toFixed(1)} %`;
  const scored = tests.map((test) => {
    const first = matcher.match(test.text, 0).best;
    return { right: first?.id === test.expect, score: first?.score ?? 0 };
  });
  const negativeScores = negatives.map((text) => {
    const first = matcher.match(text, 0).best;
    if (values.verbose && first && first.score >= threshold)
      console.log(`  negative answered: ${text} → ${first.question} (${first.score})`);
    return first?.score ?? 0;
  });
  for (const at of [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7]) {
    const right = scored.filter((s) => s.right && s.score >= at).length;
    const wrong = scored.filter((s) => !s.right && s.score >= at).length;
    const negative = negativeScores.filter((score) => score >= at).length;
    console.log(
      `  threshold ${at.toFixed(2)}: answered right ${pct(right)}, wrong ${pct(wrong)}, unsure ${pct(tests.length - right - wrong)}; ` +
        `negatives answered ${negative}/${negatives.length}`,
    );
  }
  console.log(
    `${label}: top-1 ${pct(top1)} (${top1}/${tests.length}), right pair among the 3 suggestions of a miss: ${inSuggestions}; ` +
      `at threshold ${threshold}: answered right ${pct(answeredRight)}, answered wrong ${pct(answeredWrong)}, unsure ${pct(tests.length - answeredRight - answeredWrong)}; ` +
      `negatives answered (wrongly) ${negativeScores.filter((score) => score >= threshold).length}/${negatives.length}`,
  );
  return top1 / tests.length;
}

const base = new Matcher(pairs.map(asPair));
accuracy(base, `knowledge base of ${pairs.length} pairs, ${tests.length} paraphrased questions`);

// Distractors in the same domains and languages: made-up questions over the shop's vocabulary, so the
// index and its word statistics look like a big site's, and the real pairs must still win.
let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const pick = (list) => list[Math.floor(random() * list.length)];
const enSubjects = [
  'gift card',
  'warranty',
  'store pickup',
  'loyalty points',
  'bulk order',
  'price match',
  'preorder',
  'wishlist',
  'newsletter',
  'referral bonus',
  'student discount',
  'team seat',
  'webhook',
  'single sign-on',
  'audit log',
  'mobile app',
  'browser extension',
  'dark mode',
  'label printer',
  'customs form',
  'battery',
  'charger',
  'screen protector',
  'size chart',
  'care label',
];
const enShapes = [
  'How does the {} work for {}?',
  'Can I use the {} with {}?',
  'Is the {} available in {}?',
  'What happens to my {} after {}?',
  'Why is my {} missing from {}?',
];
const enContext = [
  'my region',
  'a business account',
  'the holiday sale',
  'the mobile app',
  'an old order',
  'the annual plan',
  'a second device',
  'the team workspace',
  'a gift order',
  'the outlet store',
];
const zhSubjects = [
  '礼品卡',
  '保修',
  '门店自提',
  '会员积分',
  '批量采购',
  '价格保护',
  '预售',
  '收藏夹',
  '邮件订阅',
  '邀请奖励',
  '学生优惠',
  '团队席位',
  '开放接口',
  '单点登录',
  '操作日志',
  '手机应用',
  '浏览器插件',
  '夜间模式',
  '打印面单',
  '报关单',
  '电池',
  '充电器',
  '贴膜',
  '尺码表',
  '洗涤说明',
];
const zhShapes = ['{}在{}能用吗', '{}和{}有什么关系', '{}为什么在{}里看不到', '{}适用于{}吗', '{}在{}怎么设置'];
const zhContext = [
  '我所在的城市',
  '企业账户',
  '双十一活动',
  '手机端',
  '以前的订单',
  '年付套餐',
  '第二台设备',
  '团队空间',
  '礼品订单',
  '奥莱门店',
];
const fill = (shape, a, b) => shape.replace('{}', a).replace('{}', b);
const all = pairs.map(asPair);
for (let id = pairs.length + 1; all.length < totalPairs; id += 1) {
  const zh = random() < 0.5;
  const [subjects, shapes, context] = zh ? [zhSubjects, zhShapes, zhContext] : [enSubjects, enShapes, enContext];
  const subject = pick(subjects);
  const where = pick(context);
  const questions = [fill(pick(shapes), subject, where), fill(pick(shapes), subject, pick(context))];
  all.push({ id, questions, answer: `${subject} / ${where} #${id}`, image: '' });
}

// The first build warms the code up (as a server's start does); the measured one is a rebuild.
new Matcher(all);
// CPU time as well as wall time: on a shared machine the wall clock also counts the waits for a core.
let started = performance.now();
const cpu = process.cpuUsage();
const big = new Matcher(all);
const buildMs = performance.now() - started;
const buildCpuMs = process.cpuUsage(cpu).user / 1000;
// One pair changed in place, as an edit in the console does, instead of a rebuild.
const edits = [];
for (let n = 0; n < 200; n += 1) {
  const pair = all[(n * 37) % all.length];
  started = performance.now();
  big.add({ ...pair, questions: [...pair.questions] });
  edits.push(performance.now() - started);
}
edits.sort((a, b) => a - b);
accuracy(big, `the same questions among ${all.length} pairs (${big.size} phrasings)`);

const times = [];
for (let n = 0; n < queryCount; n += 1) {
  const test = tests[n % tests.length];
  started = performance.now();
  big.match(test.text, threshold);
  times.push(performance.now() - started);
}
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
console.log(
  `load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores; latency at ${all.length} pairs over ${queryCount} questions: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms; index rebuilt in ${buildMs.toFixed(0)} ms (${buildCpuMs.toFixed(0)} ms of CPU), ` +
    `one pair replaced in place in ${edits[Math.floor(edits.length / 2)].toFixed(2)} ms (median of ${edits.length})`,
);

if (values.semantic) {
  // Bundled to a file under node_modules, so that the module resolves the model's packages as the server does.
  const out = fileURLToPath(new URL('../node_modules/.cache/robot-bench/semantic.mjs', import.meta.url));
  const semanticBundle = await build({
    entryPoints: [fileURLToPath(new URL('../apps/server/src/modules/robots/semantic.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'warning',
  });
  mkdirSync(new URL('.', `file://${out}`), { recursive: true });
  writeFileSync(out, semanticBundle.outputFiles[0].text);
  const { SemanticScorer } = await import(out);
  const rssBefore = process.memoryUsage().rss;
  const scorer = new SemanticScorer(3_600_000, (error) => console.error(error));
  started = performance.now();
  scorer.sync(big, big.generation, () => big.pairs());
  await scorer.scores('warm up', 1);
  const embedMs = performance.now() - started;
  const english = tests.filter((test) => !/\p{Script=Han}/u.test(test.text));
  const semanticTimes = [];
  let right = 0;
  const rounds = Math.min(queryCount, 300);
  for (let n = 0; n < rounds; n += 1) {
    const test = english[n % english.length];
    started = performance.now();
    const meaning = await scorer.scores(test.text, 40);
    const { best } = big.match(test.text, threshold, 3, meaning ?? undefined);
    semanticTimes.push(performance.now() - started);
    if (n < english.length && best?.id === test.expect) right += 1;
  }
  semanticTimes.sort((a, b) => a - b);
  const sat = (q) => semanticTimes[Math.min(semanticTimes.length - 1, Math.floor(q * semanticTimes.length))].toFixed(2);
  console.log(
    `with the meaning index: every pair's English texts embedded in ${(embedMs / 1000).toFixed(1)} s, process RSS ${(rssBefore / 1e6).toFixed(0)} → ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB; ` +
      `an English question at ${all.length} pairs over ${rounds} questions: p50 ${sat(0.5)} ms, p99 ${sat(0.99)} ms, max ${sat(1)} ms; ` +
      `answered right ${right} of ${english.length} English test questions at ${threshold} (load average ${loadavg()[0].toFixed(1)})`,
  );
  scorer.stop();
}
