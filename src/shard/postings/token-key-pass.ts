// The rank / position lists' full build, its two passes over the documents (TokenKeyPostings.buildAllFrom):
// count each word's (key, document) pairs, then fill them into one typed array, a segment per word in
// document order. The shard worker runs it over its forward index in steps, or the build helper
// thread (src/build-helper/) over a copy of the arena: the same code, the same arrays. What becomes
// of each segment (bitmaps by key for a frequent word, the shared arena for the others) is the shard's.
import { fieldRankAt, tokenCountAt, tokensStartAt } from '../documents/forward-index.js';
import type { ArenaPassSource } from '../documents/arena-pass.js';
import { stepEndsAt } from '../sliced-jobs.js';

/** A token's key from the document's arena offset and its packed field << 16 | position. */
export type TokenKey = (data: Uint32Array, offset: number, fieldPosition: number) => number;

export const fieldRankKey: TokenKey = (data, offset, fieldPosition) => fieldRankAt(data, offset, fieldPosition >>> 16);
export const positionKey: TokenKey = (_data, _offset, fieldPosition) => fieldPosition & 0xffff;

/** Which key a TokenKeyPostings keeps (a name, so that another thread can be told). */
export type TokenKeyKind = 'fieldRank' | 'position';
export const TOKEN_KEYS: Readonly<Record<TokenKeyKind, TokenKey>> = { fieldRank: fieldRankKey, position: positionKey };

/** The passes' answer: word w's (key, docId) pairs are pairs[starts[w], ends[w]), documents ascending. */
export interface TokenKeyPassResult {
  starts: Uint32Array;
  ends: Uint32Array;
  pairs: Uint32Array;
  /** Tokens filled (keys below the limit, words below wordCount). */
  tokens: number;
}

/**
 * Both passes, in steps of SLICE_POLICY.documentsPerStep documents. Words from `wordCount` on (newer
 * than the build) are left out; a (key, document) pair is kept once; keys from `limit` on are not kept.
 */
export function* tokenKeyPassSteps(documents: Uint32Array, source: ArenaPassSource, wordCount: number, keyOf: TokenKey,
  limit: number): Generator<void, TokenKeyPassResult, unknown> {
  const counts = new Uint32Array(wordCount + 1);
  let tokens = 0;
  // Pass 1 over-counts repeated (key, document) pairs, which only leaves slack in the segments.
  source.rewind();
  for (let index = 0; index < documents.length; index++) {
    if (stepEndsAt(index)) {
      yield;
      source.resume();
    }
    // Words newer than the build (written meanwhile) are left out: built per word when asked.
    // (visitTokensAt's loop, inline: a closure call per token was most of this pass.)
    const offset = source.offsetAt(index);
    if (offset < 0) continue;
    const data = source.arena();
    const start = tokensStartAt(data, offset);
    const end = start + tokenCountAt(data, offset) * 2;
    for (let k = start; k < end; k += 2) {
      const wordId = data[k]!;
      if (wordId < wordCount && keyOf(data, offset, data[k + 1]!) < limit) counts[wordId + 1]!++;
    }
  }
  const starts = new Uint32Array(wordCount + 1);
  for (let wordId = 0; wordId < wordCount; wordId++) starts[wordId + 1] = starts[wordId]! + counts[wordId + 1]! * 2;
  const ends = starts.slice(0, wordCount);
  const pairs = new Uint32Array(starts[wordCount]!);
  source.rewind();
  for (let index = 0; index < documents.length; index++) {
    if (stepEndsAt(index)) {
      yield;
      source.resume();
    }
    const docId = documents[index]!;
    const offset = source.offsetAt(index);
    if (offset < 0) continue;
    const data = source.arena();
    const tokensStart = tokensStartAt(data, offset);
    const tokensEnd = tokensStart + tokenCountAt(data, offset) * 2;
    nextToken: for (let t = tokensStart; t < tokensEnd; t += 2) {
      const wordId = data[t]!;
      if (wordId >= wordCount) continue;
      const key = keyOf(data, offset, data[t + 1]!);
      if (key >= limit) continue;
      tokens++;
      const start = starts[wordId]!;
      let end = ends[wordId]!;
      // A document rewritten between the passes may bring more than was counted (its words are marked written): stay in the segment.
      if (end === starts[wordId + 1]!) continue;
      for (let k = end - 2; k >= start && pairs[k + 1] === docId; k -= 2) if (pairs[k] === key) continue nextToken;
      pairs[end++] = key;
      pairs[end++] = docId;
      ends[wordId] = end;
    }
  }
  return { starts, ends, pairs, tokens };
}
