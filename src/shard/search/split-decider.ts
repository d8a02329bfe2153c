// Per search of an index of several shards: the split each query word takes, one for every shard of
// the index (protocol/split-choice.ts). Given by the front (splitChoices), or chosen here when this
// worker holds every shard of the index, or else left undecided: the search then answers the counts
// (ShardExtras.splitCounts) and no hits, and the front asks again with the choices. Owner: one search;
// what it works out is kept in the index's SplitMemo until the index is written.
import type { SplitChoices, SplitCounts } from '../../protocol/split-choice.js';
import type { RoaringBitmap32 } from 'roaring';
import type { ShardIndex } from '../shard-index.js';

/** A chosen split's words in one shard and their documents in a row (null: none there). */
export type FoundSplit = { wordIds: [number, number]; docs: RoaringBitmap32 } | null;
import { SPLIT_CHECKS_PER_WORD, splitCandidates } from '../words/derivations.js';

/** Words the memo keeps at most, per mode (a word and a few numbers each, ~1 MiB): the oldest out first. */
const MAX_MEMO_WORDS = 16_384;

/**
 * A worker's split work for one index, between writes: per word, the point chosen over every shard
 * (a number), or this worker's counts (an array), or null (no candidate). Owner: ShardEngine, one per
 * loaded index, cleared whenever a write or a rollback touches one of its shards (also at a write's
 * yield points: the searches there see part of it).
 */
export class SplitMemo {
  /** Searches over every shard of the index: the choice; over some: this worker's counts. */
  private readonly whole = new Map<string, number | null>();
  private readonly part = new Map<string, number[] | null>();

  get(word: string, whole: boolean): number | number[] | null | undefined {
    return whole ? this.whole.get(word) : this.part.get(word);
  }

  set(word: string, whole: boolean, value: number | number[] | null): void {
    const entries: Map<string, unknown> = whole ? this.whole : this.part;
    if (entries.size >= MAX_MEMO_WORDS) entries.delete(entries.keys().next().value!);
    entries.set(word, value);
  }

  clear(): void {
    if (this.whole.size > 0) this.whole.clear();
    if (this.part.size > 0) this.part.clear();
  }
}

export class SplitDecider {
  /** Words with a split candidate in this worker's shards and no choice: their counts (the front sums every worker's). */
  undecided: SplitCounts | null = null;
  /** The front's choices, when it sent them. */
  private readonly given: ReadonlyMap<string, number> | null;

  /**
   * `choices`: the front's; `final`: a word without one takes none; `wholeIndex`: the shards are every
   * shard of the index, so the choice is made here.
   */
  constructor(private readonly shards: readonly ShardIndex[], choices: SplitChoices | undefined, private readonly final: boolean,
    private readonly wholeIndex: boolean, private readonly memo: SplitMemo) {
    this.given = choices === undefined ? null : new Map(choices);
  }

  /** Choices made in this search: the chosen split's documents per shard, counted already (ShardIndex.derive's `split.found`). */
  private found: Map<string, Map<ShardIndex, FoundSplit>> | null = null;

  /** The word's split point (0: none), as ShardIndex.derive's `split.at`. */
  splitOf(word: string): number {
    const given = this.given?.get(word);
    if (given !== undefined) return given;
    if (this.final) return 0;
    let known = this.memo.get(word, this.wholeIndex);
    if (known === undefined) {
      const found = this.wholeIndex ? new Map<ShardIndex, FoundSplit>() : null;
      const counts = splitCountsOver(this.shards, word, this.wholeIndex, found);
      known = counts === null ? null : this.wholeIndex ? choosePair(counts) : counts;
      this.memo.set(word, this.wholeIndex, known);
      if (found !== null && typeof known === 'number' && known > 0) (this.found ??= new Map()).set(word, found);
    }
    if (known === null) return 0;
    if (typeof known === 'number') return known;
    (this.undecided ??= Object.create(null) as SplitCounts)[word] = known;
    return 0;
  }

  /** The split `splitOf(word)` chose, in `shard`, when this search counted it (undefined: not at hand). */
  foundIn(word: string, shard: ShardIndex): FoundSplit | undefined {
    const found = this.found?.get(word);
    return found === undefined ? undefined : found.get(shard) ?? null;
  }
}

/** chooseSplit over [at, documents, ...] (each point once). */
function choosePair(pairs: readonly number[]): number {
  let best = 0;
  let bestCount = 0;
  for (let k = 0; k + 1 < pairs.length; k += 2) {
    const at = pairs[k]!;
    const count = pairs[k + 1]!;
    if (count > bestCount || (count === bestCount && count > 0 && at < best)) {
      best = at;
      bestCount = count;
    }
  }
  return best;
}

/**
 * bestSplit (words/derivations.ts) over several shards as over one: each split point's documents in a
 * row summed over them, candidates by their summed bound, verified while fewer than
 * SPLIT_CHECKS_PER_WORD documents were read (the first always); [at, documents, ...] of those found,
 * or null when no split has its words in a common document in any of them. `prune` (the shards are
 * the whole index): stop once no other split can beat the best, as bestSplit, so the choice is one
 * shard's, even at the bound. Else every candidate is counted up to the bound, and the front sums the
 * workers' counts: past the bound a split counts 0 from this worker, and the one choice, the same for
 * every shard, may then differ from one shard's.
 */
export function splitCountsOver(shards: readonly ShardIndex[], word: string, prune: boolean,
  bestFound: Map<ShardIndex, FoundSplit> | null = null): number[] | null {
  const byPoint = new Map<number, { at: number; bound: number; parts: { shard: ShardIndex; left: number; right: number }[] }>();
  for (const shard of shards) {
    for (const candidate of splitCandidates(shard.vocabulary, word)) {
      let point = byPoint.get(candidate.at);
      if (point === undefined) byPoint.set(candidate.at, (point = { at: candidate.at, bound: 0, parts: [] }));
      point.bound += candidate.bound;
      point.parts.push({ shard, left: candidate.left, right: candidate.right });
    }
  }
  if (byPoint.size === 0) return null;
  const candidates = [...byPoint.values()].sort((a, b) => b.bound - a.bound || a.at - b.at);
  const counts: number[] = [];
  let bestAt = 0;
  let bestCount = 0;
  let checks = SPLIT_CHECKS_PER_WORD;
  for (const candidate of candidates) {
    if (prune && bestCount > 0 && (candidate.bound < bestCount || (candidate.bound === bestCount && candidate.at > bestAt))) break;
    if (checks <= 0) break;
    checks -= candidate.bound;
    let found = 0;
    const docs = candidate.parts.map((part) => part.shard.phraseDocs([part.left, part.right]));
    for (const partDocs of docs) found += partDocs.size;
    if (found === 0) continue;
    counts.push(candidate.at, found);
    if (found > bestCount || (found === bestCount && candidate.at < bestAt)) {
      bestAt = candidate.at;
      bestCount = found;
      if (bestFound !== null) {
        bestFound.clear();
        candidate.parts.forEach((part, k) => bestFound.set(part.shard, docs[k]!.isEmpty ? null : { wordIds: [part.left, part.right], docs: docs[k]! }));
      }
    }
  }
  return counts;
}
