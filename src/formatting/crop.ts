// Choosing the crop window of a text (spec 4.2.4 rule 10, search-semantics §10): the best interval of
// matches (most distinct query terms, then closest together, then in query order), grown word by
// word to cropLength words, preferring not to cross sentence boundaries. No match: the first words.
import type { TextWord } from './text-words.js';

export interface CropWindow {
  /** Indices of the first and last word kept (inclusive). */
  first: number;
  last: number;
}

export function cropWindow(words: readonly TextWord[], cropLength: number): CropWindow {
  if (words.length <= cropLength) return { first: 0, last: words.length - 1 };
  if (cropLength === 0) return { first: 0, last: -1 };
  const interval = bestMatchInterval(words, cropLength);
  if (!interval) return { first: 0, last: cropLength - 1 };
  let { first, last } = interval;
  let remaining = cropLength - (last - first + 1);
  // Milli's crop_bounds, on words: each side peeks its next token, the separator before `first` (or
  // after `last`) until it is taken, then the next word. Separators of the same kind are taken on both
  // sides; else the side whose separator is soft; a word is taken before a separator; two words:
  // before first, then after. So an odd word left over goes before the match.
  let beforeSeparator = first > 0;
  let afterSeparator = last < words.length - 1;
  const takeBefore = () => {
    if (beforeSeparator) beforeSeparator = false;
    else { first--; remaining--; beforeSeparator = first > 0; }
  };
  const takeAfter = () => {
    if (afterSeparator) afterSeparator = false;
    else { last++; remaining--; afterSeparator = last < words.length - 1; }
  };
  while (remaining > 0) {
    const hasBefore = beforeSeparator || first > 0;
    const hasAfter = afterSeparator || last < words.length - 1;
    if (!hasBefore && !hasAfter) break;
    if (!hasAfter) takeBefore();
    else if (!hasBefore) takeAfter();
    else if (beforeSeparator && afterSeparator) {
      const hardBefore = words[first]!.hardBefore;
      const hardAfter = words[last + 1]!.hardBefore;
      if (hardBefore === hardAfter) {
        takeBefore();
        if (remaining > 1) takeAfter();
      } else if (hardBefore) takeAfter();
      else takeBefore();
    } else if (!beforeSeparator && afterSeparator) takeBefore();
    else if (beforeSeparator && !afterSeparator) takeAfter();
    else {
      takeBefore();
      if (remaining > 0) takeAfter();
    }
  }
  return { first, last };
}

interface IntervalScore {
  unique: number;
  span: number;
  order: number;
}

/** The interval between two matched words (at most cropLength words long) with the best score. */
export function bestMatchInterval(words: readonly TextWord[], cropLength: number): CropWindow | null {
  const matched: number[] = [];
  words.forEach((word, index) => {
    if (word.term >= 0) matched.push(index);
  });
  if (matched.length === 0) return null;
  let best: CropWindow | null = null;
  let bestScore: IntervalScore | null = null;
  for (let i = 0; i < matched.length; i++) {
    const terms = new Set<number>();
    let order = 0;
    for (let j = i; j < matched.length; j++) {
      const span = matched[j]! - matched[i]! + 1;
      if (span > cropLength) break;
      const term = words[matched[j]!]!.term;
      if (j > i && term > words[matched[j - 1]!]!.term) order++;
      terms.add(term);
      const score = { unique: terms.size, span, order };
      if (!bestScore || isBetter(score, bestScore)) {
        bestScore = score;
        best = { first: matched[i]!, last: matched[j]! };
      }
    }
  }
  return best;
}

function isBetter(a: IntervalScore, b: IntervalScore): boolean {
  if (a.unique !== b.unique) return a.unique > b.unique;
  if (a.span !== b.span) return a.span < b.span;
  return a.order > b.order;
}
