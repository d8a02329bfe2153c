// Per shard, the pair lookup memos kept across searches (near-pair-postings.ts PairLookupMemo), by
// the two terms' derivation objects, in the shard's caches (shard-caches.ts ShardCaches.pairMemos): a
// pair's gathered runs (and the rare documents read) depend on the words and the documents alone, and
// a derivation is dropped when a write touches its words, so a memo is only ever found while its documents stand. Bounded by their bitmaps' bytes (measured again when a
// lookup gathers a cost or what searches learned of its costs; the documents read later, a pair's few rare ones, are not). Runs on the
// shard worker thread, one search at a time.
import type { LRUCache } from 'lru-cache';
import type { TermDerivations } from '../words/derivations.js';
import { emptyPairLookupMemo, type PairLookupMemo } from './near-pair-postings.js';
import { knownCostsBytes } from './pair-cost-memo.js';
import type { ShardIndex } from '../shard-index.js';

/** The shard's memo of the pair of terms with these derivations (made empty, and kept, if none). */
export function sharedPairMemo(shard: ShardIndex, left: TermDerivations, right: TermDerivations): PairLookupMemo {
  const memos = memosOf(shard);
  const key = pairKey(shard, left, right);
  let memo = memos.get(key);
  if (memo === undefined) {
    memo = emptyPairLookupMemo();
    memos.set(key, memo);
  }
  return memo;
}

/** A memo that gathered a cost, or learned costs, is counted anew (its bitmaps are its size), if still held. */
export function remeasureSharedPairMemo(shard: ShardIndex, left: TermDerivations, right: TermDerivations, memo: PairLookupMemo): void {
  const memos = memosOf(shard);
  const key = pairKey(shard, left, right);
  if (memos.peek(key) === memo) memos.set(key, memo);
}

function memosOf(shard: ShardIndex): LRUCache<string, PairLookupMemo> {
  return shard.caches.pairMemos;
}

/** A memo's bytes, at least 1 KiB (an empty one is filled by the lookup that made it). */
export function pairMemoBytes(memo: PairLookupMemo): number {
  let bytes = 1024;
  for (const lookup of memo.byCost) {
    if (lookup === undefined) continue;
    bytes += lookup.docs.getSerializationSizeInBytes('portable') + lookup.toRead.getSerializationSizeInBytes('portable');
  }
  if (memo.knownCosts !== undefined) bytes += knownCostsBytes(memo.knownCosts);
  return bytes;
}

/**
 * With the near-pair build's generation: a build (one deferred to the background while searches read
 * documents, or a quiet-time one) swaps in other frequent words, so a memo of the old ones is not used with the new tables.
 */
function pairKey(shard: ShardIndex, left: TermDerivations, right: TermDerivations): string {
  return `${shard.nearPairs.buildGeneration} ${shard.caches.derivationId(left)} ${shard.caches.derivationId(right)}`;
}
