// The scratch one search works in: every buffer the ranking rules, the score chain and the shard's
// search context reuse from one search to the next instead of allocating per query. ONE object per
// search in progress, never shared between two searches in progress: a search's yield points run
// the searches waiting for the worker nested on its stack (src/shard/search/search-budget.ts), and
// module-level buffers were then overwritten under the outer search (a nested "away dark" lost hits:
// test/unit/nested-search-scratch.test.ts).
//
// Owner: the shard worker thread's pool (src/shard/search/thread-scratch.ts) lends one to each
// search (ShardSearchContext.scratch, taken on first use), and takes it back at the search's end
// (ShardSearchContext.release, in a finally); the thread keeps one between searches, a nested search
// gets one of its own, dropped after. Rules reach it through the search context (searchScratchOf).
// Size: the arrays grow to the largest run, vocabulary or shard seen and stay (byteSize()); the largest
// is boundsByDoc, 2 bytes per document of the largest shard whose proximity rest was classed.
import { ScratchBitmaps } from './scratch-bitmaps.js';
import type { DocMatchProfile } from './match-profile.js';
import type { RankingRule } from './ranking-rule.js';

/** match-profile-builder.ts's reused tables (declared here: ranking does not import the shard's files). */
export interface WordLookupTables {
  entries: Uint8Array;
  members: Int32Array;
  touched: Int32Array;
  inUse: boolean;
}
import { SmallestValues } from './smallest-values.js';

export class SearchScratch {
  /** Bitmaps lent to the search (scratch-bitmaps.ts): parts, layers, buckets, lookups within a universe. */
  readonly bitmaps = new ScratchBitmaps();
  /** score-chain.ts: the ids of the run being read (and the first ids of a small constant group). */
  runIds = new Uint32Array(4096);
  /** score-order.ts: one packed key per row of the run being ordered, the order of the best, and the columns' minimum, maximum and scale. */
  orderKeys = new Float64Array(1024);
  order = new Uint32Array(1024);
  orderColumns = new Float64Array(3 * 16);
  /** score-order.ts: the heap of the smallest keys (its values are sorted and copied out before the next use). */
  readonly smallest = new SmallestValues(0);
  /** scored-run.ts: the score rows and lead bound of the last run, given back for the next (null while a run holds them). */
  scores: Float64Array | null = null;
  bound: SmallestValues | null = null;
  /**
   * proximity-rest-classes.ts: a pair's bound by document id (stamp * 16 + bound, the stamp the pair's:
   * nothing is cleared between pairs), the stamp of the pair being bound, the sums and ids of the rest.
   */
  boundsByDoc = new Uint16Array(1024);
  pairStamp = 0;
  restSums = new Uint8Array(1024);
  restIds = new Uint32Array(1024);
  /** rules-from-settings.ts (reusableRulesFor): term rules by settings' rankingRules, then placeholder + matching strategy. */
  readonly rules = new WeakMap<readonly string[], Map<string, readonly RankingRule[]> | null>();
  /** src/shard/documents/match-profile-builder.ts: the word lookup's vocabulary-sized tables. */
  readonly wordLookup: WordLookupTables = { entries: new Uint8Array(0), members: new Int32Array(0), touched: new Int32Array(1024), inUse: false };
  /** src/shard/search/shard-search.ts: arena offsets for profilesOf, word-membership sets, a profile per term count. */
  readonly offsets: Int32Array[] = [new Int32Array(1024)];
  readonly wordSets: Uint8Array[] = [];
  readonly profiles: (DocMatchProfile | undefined)[] = [];
  /** match-profile-builder.ts touchEntries' sums, kept so the loads it makes to warm the caches stay live. */
  touchSink = 0;

  /** Bytes of the typed arrays held (bitmaps and profiles not counted). */
  byteSize(): number {
    let bytes = this.runIds.byteLength + this.orderKeys.byteLength + this.order.byteLength + this.orderColumns.byteLength
      + (this.scores?.byteLength ?? 0) + this.boundsByDoc.byteLength + this.restSums.byteLength + this.restIds.byteLength;
    for (const offsets of this.offsets) bytes += offsets.byteLength;
    for (const set of this.wordSets) bytes += set.byteLength;
    bytes += this.wordLookup.entries.byteLength + this.wordLookup.members.byteLength + this.wordLookup.touched.byteLength;
    return bytes;
  }
}
