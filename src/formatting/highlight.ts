// Rendering one text value for _formatted (highlight tags around matches, crop markers where text was
// cut) and its match positions in UTF-8 bytes for _matchesPosition.
import { cropWindow } from './crop.js';
import type { TextWord } from './text-words.js';

/**
 * Characters of highlight tags one search may still write. Tags are bounded (1 KiB each) but a tag
 * around every word of 1,000 long hits is not: past the budget, matches are left untagged, so what a
 * search formats stays within its documents' size plus this.
 */
export interface TagBudget {
  remaining: number;
}

/** A search's tag budget in each shard worker that formats its hits: 16 Mi characters (1.8 million matches with the default `<em>` tags). */
export const TAG_CHARS_PER_SEARCH = 16 * 1024 * 1024;

export interface TextFormat {
  highlight: { preTag: string; postTag: string; budget?: TagBudget } | null;
  /** Words to keep (0: all); null: no cropping. */
  crop: { length: number; marker: string } | null;
}

export function formatText(text: string, words: readonly TextWord[], format: TextFormat): string {
  let first = 0;
  let last = words.length - 1;
  let from = 0;
  let to = text.length;
  let prefix = '';
  let suffix = '';
  // cropLength 0 means no cropping at all (search-semantics §10).
  if (format.crop && format.crop.length > 0 && words.length > format.crop.length) {
    ({ first, last } = cropWindow(words, format.crop.length));
    from = words[first]!.start;
    to = words[last]!.end;
    if (first > 0) prefix = format.crop.marker;
    if (last < words.length - 1) suffix = format.crop.marker;
  }
  if (!format.highlight) return prefix + text.slice(from, to) + suffix;
  const { preTag, postTag, budget } = format.highlight;
  const tagChars = preTag.length + postTag.length;
  let out = prefix;
  let cursor = from;
  for (let k = first; k <= last; k++) {
    const word = words[k]!;
    if (word.term < 0 || word.matchEnd <= word.start) continue;
    if (budget) {
      if (budget.remaining < tagChars) break;
      budget.remaining -= tagChars;
    }
    out += text.slice(cursor, word.start) + preTag + text.slice(word.start, word.matchEnd) + postTag;
    cursor = word.matchEnd;
  }
  return out + text.slice(cursor, to) + suffix;
}

export interface MatchPosition {
  start: number;
  length: number;
  indices?: number[];
}

export function matchPositions(text: string, words: readonly TextWord[], indices: readonly number[]): MatchPosition[] {
  const out: MatchPosition[] = [];
  let byteCursor = 0;
  let charCursor = 0;
  for (const word of words) {
    if (word.term < 0 || word.matchEnd <= word.start) continue;
    byteCursor += Buffer.byteLength(text.slice(charCursor, word.start));
    charCursor = word.start;
    const position: MatchPosition = { start: byteCursor, length: Buffer.byteLength(text.slice(word.start, word.matchEnd)) };
    if (indices.length > 0) position.indices = [...indices];
    out.push(position);
  }
  return out;
}
