// Random lexicon material shared by the randomized lexicon tests.
import { defaultSettings, type IndexSettings } from '../../src/settings/index-settings.js';

// A word with `edits` random edits (insertion, deletion, substitution, adjacent transposition) of
// letters from `letters`: the near words randomized lexicon tests build families from.
export function mutate(random: () => number, letters: readonly string[], word: string, edits: number): string {
  let out = word;
  for (let k = 0; k < edits; k++) {
    const at = Math.floor(random() * (out.length + 1));
    const letter = letters[Math.floor(random() * letters.length)]!;
    const roll = random();
    if (roll < 0.25) out = out.slice(0, at) + letter + out.slice(at);
    else if (roll < 0.5) out = out.slice(0, at) + out.slice(at + 1);
    else if (roll < 0.75) out = out.slice(0, at) + letter + out.slice(at + 1);
    else if (at + 1 < out.length) out = out.slice(0, at) + out[at + 1]! + out[at]! + out.slice(at + 2);
  }
  return out;
}

/** `count` random words of 3-14 letters, half of them edits of earlier ones (families of near words, as real lexicons have). */
export function randomLexicon(random: () => number, letters: readonly string[], count: number): string[] {
  const randomWord = () => Array.from({ length: 3 + Math.floor(random() * 12) }, () => letters[Math.floor(random() * letters.length)]!).join('');
  const words: string[] = [];
  for (let k = 0; k < count; k++) {
    // Families of near words (a word and its edits), as real lexicons have.
    if (words.length > 0 && random() < 0.5) words.push(mutate(random, letters, words[Math.floor(random() * words.length)]!, 1 + Math.floor(random() * 2)));
    else words.push(randomWord());
  }
  return words.filter((word) => word.length > 0);
}

/** Queries near `words`: one to three edits, prefixes, two words glued, the words themselves. */
export function queriesOf(random: () => number, letters: readonly string[], words: readonly string[], count: number): string[] {
  return Array.from({ length: count }, () => {
    const base = words[Math.floor(random() * words.length)]!;
    const roll = random();
    if (roll < 0.35) return mutate(random, letters, base, 1);
    if (roll < 0.6) return mutate(random, letters, base, 2);
    if (roll < 0.7) return mutate(random, letters, base, 3);
    if (roll < 0.8) return base.slice(0, 1 + Math.floor(random() * base.length));
    if (roll < 0.9) return base + words[Math.floor(random() * words.length)]!;
    return base;
  }).filter((query) => query.length > 0);
}

/**
 * Settings of the paired-shard rounds (a shortcut on and off): round 2 allows typos from fewer letters
 * (two typos from `twoTyposFrom`), round 3 none on the titles (words under a mark).
 */
export function typoRoundSettings(round: number, twoTyposFrom: number): Partial<IndexSettings> {
  const typoTolerance = { ...defaultSettings().typoTolerance, ...(round === 2 ? { minWordSizeForTypos: { oneTypo: 3, twoTypos: twoTyposFrom } } : {}),
    ...(round === 3 ? { disableOnAttributes: ['title'] } : {}) };
  return { searchableAttributes: ['title', 'body'], typoTolerance };
}
