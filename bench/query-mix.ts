// The query list a workload rotates through. Queries come from the dataset itself (its vocabulary and
// its titles), so they hit documents the way real users' queries do, and from a seeded RNG, so every
// run sends the same list.
import type { Dataset } from './dataset.js';
import { SeededRandom, deriveSeed } from './seeded-random.js';
import { facetParams, filterExpression, geoParams, sortParams } from './structured-queries.js';
import { applyTypo } from './typo.js';

/** Text kinds need nothing but `q`; the structured ones (phrase onwards) add search parameters. */
export const queryKinds = ['word', 'multiWord', 'prefix', 'typo', 'phrase', 'filtered', 'faceted', 'sorted', 'geo'] as const;
export type QueryKind = (typeof queryKinds)[number];

export interface QueryMixSpec {
  /** How many distinct requests to pre-build; the load generator cycles through them. */
  count: number;
  limit: number;
  /** Relative weights; kinds left out or at 0 are never generated. */
  mix: Partial<Record<QueryKind, number>>;
  /** Single words are drawn from the Zipf distribution skipping this many top ranks: nobody searches "the". */
  skipTopRanks: number;
  /** Extra search parameters sent with every query (e.g. attributesToHighlight, filter). */
  params?: Record<string, unknown>;
}

export interface BenchQuery {
  kind: QueryKind;
  q: string;
  /** The JSON body of POST /indexes/{uid}/search. */
  body: string;
}

/** Smallest word length Meilisearch tolerates one typo on, by default. */
const minTypoWordLength = 5;

function zipfWord(dataset: Dataset, random: SeededRandom, skipTopRanks: number, minLength = 1): string {
  const skip = Math.min(skipTopRanks, dataset.vocabulary.length - 1);
  for (let attempt = 0; attempt < 1000; attempt++) {
    const rank = dataset.wordSampler.sample(random);
    const word = dataset.vocabulary[rank];
    if (rank >= skip && word.length >= minLength) return word;
  }
  return dataset.vocabulary[dataset.vocabulary.length - 1];
}

/** `length` consecutive words from a random document's title: what someone looking for it would type. */
function titleWindow(dataset: Dataset, random: SeededRandom, length: number): string[] {
  const words = dataset.queryableWordsAt(random.int(0, dataset.spec.documents - 1));
  const size = Math.min(length, words.length);
  const start = random.int(0, words.length - size);
  return words.slice(start, start + size);
}

export function buildQueryText(kind: QueryKind, dataset: Dataset, random: SeededRandom, skipTopRanks: number): string {
  switch (kind) {
    case 'word':
      return zipfWord(dataset, random, skipTopRanks);
    case 'multiWord':
      return titleWindow(dataset, random, random.int(2, 4)).join(' ');
    case 'prefix': {
      // As-you-type: every word but the last is complete; the last is cut after 1..n-1 letters.
      const words = titleWindow(dataset, random, random.int(1, 3));
      const last = words[words.length - 1];
      words[words.length - 1] = last.slice(0, Math.max(1, random.int(1, last.length - 1)));
      return words.join(' ');
    }
    case 'typo': {
      const words = random.chance(0.6)
        ? [zipfWord(dataset, random, skipTopRanks, minTypoWordLength)]
        : titleWindow(dataset, random, 2);
      let target = words.findIndex((word) => word.length >= minTypoWordLength);
      if (target < 0) {
        words.push(zipfWord(dataset, random, skipTopRanks, minTypoWordLength));
        target = words.length - 1;
      }
      words[target] = applyTypo(words[target], random);
      return words.join(' ');
    }
    case 'phrase':
      return `"${titleWindow(dataset, random, random.int(2, 3)).join(' ')}"`;
    case 'filtered':
    case 'faceted':
    case 'sorted':
      // A plain word, or the empty placeholder search (browse by filter/facet/sort alone) now and then.
      return random.chance(0.2) ? '' : zipfWord(dataset, random, skipTopRanks);
    case 'geo':
      return random.chance(0.5) ? '' : zipfWord(dataset, random, skipTopRanks);
  }
}

/** The search parameters a kind adds to `q` and `limit`. */
export function paramsForKind(kind: QueryKind, random: SeededRandom): Record<string, unknown> {
  switch (kind) {
    case 'filtered':
      return { filter: filterExpression(random) };
    case 'faceted':
      return facetParams(random);
    case 'sorted':
      return sortParams(random);
    case 'geo':
      return geoParams(random);
    default:
      return {};
  }
}

export function buildQueries(dataset: Dataset, spec: QueryMixSpec): BenchQuery[] {
  const random = new SeededRandom(deriveSeed(dataset.spec.seed, 'queries'));
  const kinds = queryKinds.filter((kind) => (spec.mix[kind] ?? 0) > 0);
  if (kinds.length === 0) throw new Error('query mix has no kind with a positive weight');
  const weights = kinds.map((kind) => spec.mix[kind] ?? 0);
  const queries: BenchQuery[] = [];
  for (let i = 0; i < spec.count; i++) {
    const kind = kinds[random.weightedIndex(weights)];
    const q = buildQueryText(kind, dataset, random, spec.skipTopRanks);
    queries.push({ kind, q, body: JSON.stringify({ ...spec.params, ...paramsForKind(kind, random), q, limit: spec.limit }) });
  }
  return queries;
}
