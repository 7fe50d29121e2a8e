// The matcher alone (apps/server/src/modules/robots/matcher.ts, bundled on the fly as robot.mjs does) on
// bench/robot-eval/dev.json: top-1 and, for each threshold, answered right / wrong and off-topic answered,
// in a second, for tuning. Only the development set: heldout.json is measured through the server
// (robot-eval.mjs), never swept. `--verbose` lists every paraphrase with the pair it reached.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const { values } = parseArgs({ options: { verbose: { type: 'boolean', default: false } } });
const server = fileURLToPath(new URL('../apps/server/', import.meta.url));
const bundled = await build({
  entryPoints: [`${server}src/modules/robots/matcher.ts`],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  write: false,
  packages: 'external',
  logLevel: 'warning',
});
// Written beside the server's sources, so the bundle resolves the server's packages (the thesaurus' data).
const out = `${server}.robot-sweep.mjs`;
writeFileSync(out, bundled.outputFiles[0].text);
let Matcher;
try {
  ({ Matcher } = await import(out));
} finally {
  rmSync(out, { force: true });
}

const set = JSON.parse(readFileSync(new URL('./robot-eval/dev.json', import.meta.url), 'utf8'));
const asked = [];
const offTopic = [];
for (const kb of set.kbs) {
  const matcher = new Matcher(kb.pairs.map((pair) => ({ id: pair.id, questions: pair.questions, answer: pair.answer, image: '' })));
  for (const question of set.paraphrases.filter((p) => p.kb === kb.id)) {
    const { best } = matcher.match(question.text, 0);
    asked.push({ ...question, score: best?.score ?? 0, right: best?.id === question.pairId, reached: best?.question });
  }
  for (const question of set.offTopic.filter((p) => p.kb === kb.id)) {
    offTopic.push({ ...question, score: matcher.match(question.text, 0).best?.score ?? 0 });
  }
}
const pct = (count, of) => `${((100 * count) / of).toFixed(1)} %`;
const of = (lang) => asked.filter((q) => !lang || q.lang === lang);
console.log(
  `dev: top-1 ${pct(of().filter((q) => q.right).length, of().length)} (zh ${pct(of('zh').filter((q) => q.right).length, of('zh').length)}, en ${pct(of('en').filter((q) => q.right).length, of('en').length)})`,
);
for (let threshold = 0.3; threshold <= 0.701; threshold += 0.05) {
  const line = (lang) => {
    const all = of(lang);
    const answered = all.filter((q) => q.score >= threshold);
    const right = answered.filter((q) => q.right).length;
    const off = offTopic.filter((q) => (!lang || q.lang === lang) && q.score >= threshold).length;
    const offOf = offTopic.filter((q) => !lang || q.lang === lang).length;
    return `right ${pct(right, all.length)}, wrong ${pct(answered.length - right, all.length)}, off-topic ${off}/${offOf}`;
  };
  console.log(`  threshold ${threshold.toFixed(2)}: ${line()}  | zh ${line('zh')} | en ${line('en')}`);
}
if (values.verbose) {
  for (const q of asked) console.log(`${q.right ? 'right' : 'miss '} ${q.score.toFixed(3)} ${q.text} → ${q.reached ?? '—'}`);
  for (const q of offTopic) console.log(`off   ${q.score.toFixed(3)} ${q.text}`);
}
