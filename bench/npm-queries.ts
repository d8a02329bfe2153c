// The real-text query list of the "windows" workloads (npm.tsv): drawn with a seeded RNG from the corpus
// itself, so queries look like what people type into a package search box. Mostly unique: a long tail
// of word combinations from random packages, like real traffic (the distinct share is reported), sent
// as GET /indexes/<uid>/search?q=...&limit=... Each query remembers what it was derived from, so the
// answers can be scored (quality.ts).
import { textWords, type NpmDataset } from './npm-dataset.js';
import { SeededRandom, deriveSeed } from './seeded-random.js';
import { applyTypo } from './typo.js';

export const realQueryKinds = ['word', 'twoWords', 'threeWords', 'prefix', 'typo', 'rare'] as const;
export type RealQueryKind = (typeof realQueryKinds)[number];

export interface RealQuery {
  kind: RealQueryKind;
  q: string;
  /** The full words the query was made of (for prefix: the last one completed; for typo: before the typo). */
  words: string[];
  /** prefix, typo, rare: the word a user meant; a good engine has it in one of its top hits. */
  intended: string | null;
}

export interface RealQuerySpec {
  count: number;
  limit: number;
  mix: Partial<Record<RealQueryKind, number>>;
}

/** Smallest word length Meilisearch tolerates one typo on, by default. */
const minTypoWordLength = 5;
const isPlainWord = (word: string) => /^\p{L}+$/u.test(word);

/** `length` consecutive words (2+ characters, not only digits) of a random package's name and summary. */
function window(dataset: NpmDataset, random: SeededRandom, length: number): string[] | null {
  const words = dataset.queryableWordsAt(random.int(0, Math.min(dataset.spec.documents, dataset.rowCount) - 1))
    .filter((word) => word.length >= 2 && !/^\d+$/.test(word));
  if (words.length < length) return null;
  const start = random.int(0, words.length - length);
  return words.slice(start, start + length);
}

function build(kind: RealQueryKind, dataset: NpmDataset, random: SeededRandom, rare: readonly string[]): RealQuery | null {
  switch (kind) {
    case 'word': {
      const words = window(dataset, random, 1);
      return words && words[0].length >= 3 ? { kind, q: words[0], words, intended: null } : null;
    }
    case 'twoWords':
    case 'threeWords': {
      const words = window(dataset, random, kind === 'twoWords' ? 2 : 3);
      return words ? { kind, q: words.join(' '), words, intended: null } : null;
    }
    case 'prefix': {
      // As you type: every word but the last is complete; the last is cut after 2..n-1 letters.
      const words = window(dataset, random, random.int(1, 3));
      if (!words) return null;
      const last = words[words.length - 1];
      if (last.length < 3) return null;
      const typed = [...words.slice(0, -1), last.slice(0, random.int(2, last.length - 1))];
      return { kind, q: typed.join(' '), words, intended: last };
    }
    case 'typo': {
      const words = window(dataset, random, 1);
      if (!words || words[0].length < minTypoWordLength || !isPlainWord(words[0])) return null;
      const typo = applyTypo(words[0], random);
      // A "typo" that is another word of the corpus is that word's query, not a typo.
      if (dataset.wordCounts.has(typo)) return null;
      return { kind, q: typo, words, intended: words[0] };
    }
    case 'rare': {
      if (rare.length === 0) return null;
      const word = random.pick(rare);
      return { kind, q: word, words: [word], intended: word };
    }
  }
}

export function buildRealQueries(dataset: NpmDataset, spec: RealQuerySpec): RealQuery[] {
  const random = new SeededRandom(deriveSeed(dataset.spec.seed, 'npm-queries'));
  const kinds = realQueryKinds.filter((kind) => (spec.mix[kind] ?? 0) > 0);
  if (kinds.length === 0) throw new Error('query mix has no kind with a positive weight');
  const weights = kinds.map((kind) => spec.mix[kind] ?? 0);
  // Rare: words of 4+ letters that occur once or twice in the whole corpus.
  const rare = [...dataset.wordCounts].filter(([word, count]) => count <= 2 && word.length >= 4 && isPlainWord(word)).map(([word]) => word).sort();
  const queries: RealQuery[] = [];
  while (queries.length < spec.count) {
    const kind = kinds[random.weightedIndex(weights)];
    for (let attempt = 0; attempt < 50; attempt++) {
      const query = build(kind, dataset, random, rare);
      if (query) {
        queries.push(query);
        break;
      }
    }
  }
  return queries;
}

/** The GET path of a query. */
export function searchPath(indexUid: string, q: string, limit: number): string {
  return `/indexes/${indexUid}/search?q=${encodeURIComponent(q)}&limit=${limit}`;
}

export function distinctShare(queries: readonly RealQuery[]): number {
  return Math.round((new Set(queries.map((query) => query.q)).size / Math.max(1, queries.length)) * 1000) / 1000;
}

export { textWords };
