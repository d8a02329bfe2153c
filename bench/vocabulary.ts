// A vocabulary of pronounceable made-up words, built from syllables so nothing is downloaded.
// Frequent ranks get short words, rare ranks long ones, as in natural languages; that matters to
// search because typo tolerance and prefix expansion depend on word length.
import { SeededRandom } from './seeded-random.js';

const onsets = [
  '', '', '', 'b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z',
  'br', 'cr', 'dr', 'fr', 'gr', 'pr', 'tr', 'bl', 'cl', 'fl', 'gl', 'pl', 'sl', 'ch', 'sh', 'th', 'st', 'sp', 'qu',
];
const nuclei = ['a', 'a', 'e', 'e', 'i', 'o', 'o', 'u', 'ai', 'ea', 'ee', 'ou', 'oo', 'io', 'y'];
const codas = ['', '', '', '', 'n', 'r', 's', 't', 'l', 'm', 'nd', 'st', 'rt', 'ng', 'ck', 'x', 'th'];

/** Syllables per word by 0-based frequency rank: the top of the list is monosyllabic. */
export function syllableRange(rank: number): [number, number] {
  if (rank < 60) return [1, 1];
  if (rank < 1_500) return [1, 2];
  return [2, 3];
}

/** Longer made-up words read as noise; natural rare words rarely pass a dozen letters. */
const maxWordLength = 12;

function syllable(random: SeededRandom): string {
  return random.pick(onsets) + random.pick(nuclei) + random.pick(codas);
}

/** `size` distinct lowercase words; index = frequency rank (0 = most frequent). */
export function buildVocabulary(size: number, seed: number): string[] {
  const random = new SeededRandom(seed);
  const seen = new Set<string>();
  const words: string[] = [];
  while (words.length < size) {
    const [fewest, most] = syllableRange(words.length);
    const count = random.int(fewest, most);
    let word = '';
    for (let i = 0; i < count; i++) word += syllable(random);
    // One-letter words are noise for a search benchmark (Meilisearch never typo-corrects them).
    if (word.length < 2 || word.length > maxWordLength || seen.has(word)) continue;
    seen.add(word);
    words.push(word);
  }
  return words;
}
