// One Damerau-Levenshtein edit, the kind of mistake Meilisearch's typo tolerance forgives (one typo
// from 5 letters, two from 9).
import type { SeededRandom } from './seeded-random.js';

const letters = 'abcdefghijklmnopqrstuvwxyz';

function differentLetter(random: SeededRandom, current: string): string {
  let letter = current;
  while (letter === current) letter = random.pick([...letters]);
  return letter;
}

/** The word with exactly one substitution, deletion, insertion or transposition (never unchanged). */
export function applyTypo(word: string, random: SeededRandom): string {
  if (word.length < 2) return word + differentLetter(random, '');
  const position = random.int(0, word.length - 1);
  switch (random.int(0, 3)) {
    case 0:
      return word.slice(0, position) + differentLetter(random, word[position]) + word.slice(position + 1);
    case 1:
      return word.slice(0, position) + word.slice(position + 1);
    case 2:
      return word.slice(0, position) + random.pick([...letters]) + word.slice(position);
    default: {
      const at = Math.min(position, word.length - 2);
      if (word[at] === word[at + 1]) {
        return word.slice(0, at) + differentLetter(random, word[at]) + word.slice(at + 1);
      }
      return word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
    }
  }
}
