// Which words of a document text match the query, for highlighting, cropping and _matchesPosition
// (search-semantics §10). Built from the query alone (not from a shard's vocabulary), so every
// worker formats a hit the same way: exact words, typo variants within the typo budget (a different
// first letter costs two), prefixes of the last word (only the matched prefix counts), and synonyms.
import type { CharClassifier } from '../analysis/separators.js';
import { parseQuery } from '../query/parse-query.js';
import { typoBudget, type TypoPolicy } from '../query/typo-budget.js';
import { multiWordSynonyms, type SynonymMap } from '../query/synonyms.js';
import { prefixEditDistance, editDistance, UnitDistances } from './edit-distance.js';

export interface WordMatch {
  /** The query term the word matched (synonyms count as their source term). */
  term: number;
  /** How many characters of the normalized word matched: its length, or the prefix length. */
  length: number;
}

/** Takes a normalized document word; null when it matches nothing. Carries the index's separators, to split texts alike. */
export interface WordMatcher {
  (word: string): WordMatch | null;
  classify?: CharClassifier;
}

export interface MatcherOptions {
  typoPolicy: TypoPolicy;
  prefixSearch: boolean;
  /** Normalized synonyms: normalized key -> normalized words of each alternative. */
  synonyms: SynonymMap;
  /** The index's separator settings; default separators when absent. */
  classify?: CharClassifier;
  /** The distances' table to use (its owner's, edit-distance.ts); a new one when absent. */
  distances?: UnitDistances;
}

interface QueryWord {
  word: string;
  term: number;
  isPrefix: boolean;
  budget: number;
}

/** Stop words are kept here: Meilisearch highlights them too. */
export function queryWordsOf(q: string, options: MatcherOptions): QueryWord[] {
  const words: QueryWord[] = [];
  const terms = parseQuery(q, { stopWords: new Set(), prefixSearch: options.prefixSearch, ...(options.classify ? { classify: options.classify } : {}) });
  const keyRuns = multiWordSynonyms(terms, options.synonyms);
  terms.forEach((term, index) => {
    if (term.kind === 'phrase') {
      for (const word of term.words) if (word !== null) words.push({ word, term: index, isPrefix: false, budget: 0 });
      return;
    }
    words.push({ word: term.word, term: index, isPrefix: term.isPrefix, budget: typoBudget(term.word, options.typoPolicy) });
    for (const alternative of [...(options.synonyms.get(term.word) ?? []), ...(keyRuns.get(index) ?? [])]) {
      for (const word of alternative) words.push({ word, term: index, isPrefix: false, budget: 0 });
    }
  });
  return words;
}

export function buildMatcher(q: string | null, options: MatcherOptions): WordMatcher {
  const words = q ? queryWordsOf(q, options) : [];
  const exact = new Map<string, number>();
  for (const { word, term } of words) if (!exact.has(word)) exact.set(word, term);
  const fuzzy = words.filter((word) => word.isPrefix || word.budget > 0);
  const cache = new Map<string, WordMatch | null>();
  const distances = options.distances ?? new UnitDistances();
  const matcher: WordMatcher = (candidate) => {
    const known = cache.get(candidate);
    if (known !== undefined) return known;
    let best: WordMatch | null = null;
    const term = exact.get(candidate);
    const candidateLength = charCount(candidate);
    if (term !== undefined) best = { term, length: candidateLength };
    for (const query of fuzzy) {
      if (best && best.length >= candidateLength) break;
      const match = matchOne(query, candidate, distances);
      if (match && (!best || match.length > best.length)) best = match;
    }
    cache.set(candidate, best);
    return best;
  };
  if (options.classify) matcher.classify = options.classify;
  return matcher;
}

function matchOne(query: QueryWord, candidate: string, distances: UnitDistances): WordMatch | null {
  if (!hasSurrogate(candidate) && !hasSurrogate(query.word)) return matchUnits(query, candidate, distances);
  const target = [...candidate];
  const word = [...query.word];
  const sameFirst = target[0] === word[0];
  // A typo on the first letter counts double (search-semantics §3).
  const allowed = sameFirst ? query.budget : query.budget >= 2 ? 1 : -1;
  if (allowed < 0) return null;
  if (query.isPrefix) {
    const { distance, length } = prefixEditDistance(word, target);
    return distance <= allowed ? { term: query.term, length } : null;
  }
  if (allowed === 0) return null;
  return editDistance(word, target) <= allowed ? { term: query.term, length: target.length } : null;
}

/**
 * matchOne for words without surrogates (a UTF-16 unit is then a code point), with no arrays made: a
 * distance is at least the difference of the lengths (to the whole word, or to a prefix of it no longer
 * than the word), so most pairs are decided without a table.
 */
function matchUnits(query: QueryWord, candidate: string, distances: UnitDistances): WordMatch | null {
  const word = query.word;
  // The first code unit of an empty word is NaN on both sides: equal, as undefined === undefined is for arrays.
  const sameFirst = candidate.length === 0 || word.length === 0 ? candidate.length === word.length : candidate.charCodeAt(0) === word.charCodeAt(0);
  const allowed = sameFirst ? query.budget : query.budget >= 2 ? 1 : -1;
  if (allowed < 0) return null;
  if (query.isPrefix) {
    if (word.length - candidate.length > allowed) return null;
    const { distance, length } = distances.prefixDistance(word, candidate);
    return distance <= allowed ? { term: query.term, length } : null;
  }
  if (allowed === 0 || Math.abs(word.length - candidate.length) > allowed) return null;
  return distances.distance(word, candidate) <= allowed ? { term: query.term, length: candidate.length } : null;
}

function hasSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdfff) return true;
  }
  return false;
}

/** Code points in a string, without allocating. */
export function charCount(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) count--;
  }
  return count;
}
