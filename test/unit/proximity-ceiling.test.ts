// proximityScore's ceiling (proximity.ts): the exact score at or below it, a value above it (and at
// most the exact score) when the score is above it; with a phrase term, always the exact score.
import test from 'ava';
import { addOccurrence, emptyProfile, packOccurrence } from '../../src/ranking/match-profile.js';
import { proximityScore } from '../../src/ranking/rules/proximity.js';
import type { SearchContext } from '../../src/ranking/search-context.js';
import { randomFrom } from './seeded-lcg.js';

function contextOf(termCount: number, phraseAt: number): SearchContext {
  return {
    terms: Array.from({ length: termCount }, (_, position) => (position === phraseAt
      ? { kind: 'phrase', words: ['a', 'b', 'c'], position }
      : { kind: 'word', word: `w${position}`, isPrefix: false, position }) as never),
  } as unknown as SearchContext;
}

test('above the ceiling proximityScore returns a value above it and never above the exact score', (t) => {
  const random = randomFrom(11);
  for (let round = 0; round < 400; round++) {
    const termCount = 2 + Math.floor(random() * 4);
    const phraseAt = round % 4 === 0 ? Math.floor(random() * termCount) : -1;
    const ctx = contextOf(termCount, phraseAt);
    const profile = emptyProfile(termCount);
    for (let term = 0; term < termCount; term++) {
      const count = 1 + Math.floor(random() * 4);
      const keys = Array.from({ length: count }, () => Math.floor(random() * 2) * 64 + Math.floor(random() * 20)).sort((a, b) => a - b);
      for (const key of new Set(keys)) addOccurrence(profile, term, packOccurrence(key >> 6, key & 63, key >> 6, 0, true));
    }
    const terms = Array.from({ length: termCount }, (_, term) => term);
    const exact = proximityScore(ctx, profile, terms);
    const ceiling = Math.floor(random() * 8 * termCount);
    const bounded = proximityScore(ctx, profile, terms, ceiling);
    if (exact <= ceiling || phraseAt >= 0) t.is(bounded, exact, `round ${round}`);
    else t.true(bounded > ceiling && bounded <= exact, `round ${round}: ${bounded} for ${exact} above ${ceiling}`);
  }
});
