// The words of a shard that a query word stands for: itself, the words it is a prefix of (last
// query word), and its typo variants (search-semantics reference §3: a typo on the first letter
// counts as two; at most 150 one-typo and 50 two-typo words, in lexicon order, as milli caps them).
import roaring from 'roaring';
import { prefixRange } from './lexicon.js';
import { walkFuzzy } from './fuzzy-walk.js';
import type { Vocabulary } from './vocabulary.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

export const MAX_ONE_TYPO_WORDS = 150;
export const MAX_TWO_TYPO_WORDS = 50;

export interface WordDerivation {
  wordId: number;
  typos: number;
  /** The query word itself (not a prefix extension, not a typo): what the exactness rule rewards. */
  exact: boolean;
}

export interface TermDerivations {
  words: WordDerivation[];
  /** Every document matching some derivation. */
  docs: RoaringBitmap32;
  /** docsByTypo[k]: documents whose best derivation has exactly k typos (disjoint, k = 0..2). */
  docsByTypo: RoaringBitmap32[];
}

export function deriveWord(vocabulary: Vocabulary, word: string, isPrefix: boolean, budget: number): TermDerivations {
  const byTypo: Map<number, number>[] = [new Map(), new Map(), new Map()];
  const consider = (candidate: string, typos: number) => {
    const id = vocabulary.idOf(candidate);
    if (id === undefined || vocabulary.docs(id).isEmpty) return;
    for (let k = 0; k < typos; k++) if (byTypo[k]!.has(id)) return;
    byTypo[typos]!.set(id, typos);
  };
  consider(word, 0);
  const lists = vocabulary.lexicon.lists();
  if (isPrefix) {
    for (const list of lists) {
      const [start, end] = prefixRange(list, word);
      for (let k = start; k < end; k++) consider(list[k]!, 0);
    }
  }
  if (budget > 0 && word.length > 0) collectTypos(lists, word, isPrefix, budget, byTypo, consider);
  return toDerivations(vocabulary, word, byTypo);
}

function collectTypos(lists: readonly (readonly string[])[], word: string, isPrefix: boolean, budget: number,
  byTypo: Map<number, number>[], consider: (candidate: string, typos: number) => void): void {
  const caps = [Infinity, MAX_ONE_TYPO_WORDS, MAX_TWO_TYPO_WORDS];
  const full = (typos: number) => byTypo[typos]!.size >= caps[typos]!;
  const first = word.slice(0, 1);
  for (const list of lists) {
    const [sameStart, sameEnd] = prefixRange(list, first);
    walkFuzzy(list, word, budget, isPrefix, (candidate, distance) => {
      if (distance > 0 && !full(distance)) consider(candidate, distance);
      return !(full(1) && (budget < 2 || full(2)));
    }, sameStart, sameEnd);
    if (budget < 2) continue;
    // A different first letter is a typo that counts double: allowed only as the whole two-typo budget.
    const elsewhere = (candidate: string, distance: number) => {
      if (distance > 0 && !full(2)) consider(candidate, 2);
      return !full(2);
    };
    if (walkFuzzy(list, word, 1, isPrefix, elsewhere, 0, sameStart)) walkFuzzy(list, word, 1, isPrefix, elsewhere, sameEnd, list.length);
  }
}

function toDerivations(vocabulary: Vocabulary, word: string, byTypo: Map<number, number>[]): TermDerivations {
  const exactId = vocabulary.idOf(word);
  const words: WordDerivation[] = [];
  const docsByTypo: RoaringBitmap32[] = [];
  let seen = new RoaringBitmap32();
  for (let typos = 0; typos < 3; typos++) {
    const ids = [...byTypo[typos]!.keys()];
    for (const wordId of ids) words.push({ wordId, typos, exact: typos === 0 && wordId === exactId });
    const union = RoaringBitmap32.orMany(ids.map((id) => vocabulary.docs(id)));
    union.andNotInPlace(seen);
    docsByTypo.push(union);
    seen = RoaringBitmap32.or(seen, union);
  }
  return { words, docs: seen, docsByTypo };
}
