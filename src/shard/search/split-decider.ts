// Per search of an index of several shards: the split each query word takes, one for every shard of
// the index (protocol/split-choice.ts). Given by the front (splitChoices), or chosen here when this
// worker holds every shard of the index, or else left undecided: the search then answers the counts
// (ShardExtras.splitCounts) and no hits, and the front asks again with the choices. Owner: one search.
import { addSplitCounts, chooseSplit, type SplitChoices, type SplitCounts } from '../../protocol/split-choice.js';
import type { ShardIndex } from '../shard-index.js';

export class SplitDecider {
  private readonly decided = new Map<string, number>();
  /** Words with a split candidate in this worker's shards and no choice: their summed counts. */
  undecided: SplitCounts | null = null;
  /** The front's choices, when it sent them. */
  private readonly given: ReadonlyMap<string, number> | null;

  /**
   * `choices`: the front's (a word absent takes none); `wholeIndex`: the shards are every shard of the
   * index, so their sums are the index's.
   */
  constructor(private readonly shards: readonly ShardIndex[], choices: SplitChoices | undefined, private readonly wholeIndex: boolean) {
    this.given = choices === undefined ? null : new Map(choices);
  }

  /** The word's split point (0: none), as ShardIndex.derive's `split.at`. */
  readonly splitOf = (word: string, isPrefix: boolean, budget: number): number => {
    if (this.given !== null) return this.given.get(word) ?? 0;
    const known = this.decided.get(word);
    if (known !== undefined) return known;
    let at = 0;
    const sums = new Map<string, Map<number, number>>();
    let candidates = false;
    for (const shard of this.shards) {
      const counts = shard.splitCounts(word, isPrefix, budget);
      if (counts === null) continue;
      candidates = true;
      addSplitCounts(sums, { [word]: counts });
    }
    if (candidates) {
      const byPoint = sums.get(word)!;
      if (this.wholeIndex) at = chooseSplit(byPoint);
      else (this.undecided ??= Object.create(null) as SplitCounts)[word] = [...byPoint].flat();
    }
    this.decided.set(word, at);
    return at;
  };
}
