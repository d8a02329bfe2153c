// milli's split words (split_best_frequency) over an index of several shards: a query word's split
// into two words is the split point whose two words stand in a row in the most documents of the WHOLE
// index (the first point on a tie), and every shard must take that one split. Each shard counts its
// part (shard/words/derivations.ts splitCounts); a worker holding every shard of the index sums and
// chooses itself (shard/search/split-decider.ts); otherwise it answers those counts instead of hits
// (ShardExtras.splitCounts), the front sums every worker's, chooses here and searches again with the
// choices (ShardSearchOptions.splitChoices; front/search/split-choice-cache.ts keeps them).

/** word -> [split point, documents with the two words in a row, ...] (a word listed without a pair: no split found). */
export type SplitCounts = Record<string, number[]>;

/** Adds a worker's (or shard's) counts to the sums: word -> split point -> documents. */
export function addSplitCounts(sums: Map<string, Map<number, number>>, counts: SplitCounts): void {
  for (const word of Object.keys(counts)) {
    let byPoint = sums.get(word);
    if (byPoint === undefined) sums.set(word, (byPoint = new Map()));
    const pairs = counts[word]!;
    for (let k = 0; k + 1 < pairs.length; k += 2) byPoint.set(pairs[k]!, (byPoint.get(pairs[k]!) ?? 0) + pairs[k + 1]!);
  }
}

/** The chosen split point: the most documents, the first point on a tie; 0 (no split) when none has any. */
export function chooseSplit(byPoint: ReadonlyMap<number, number>): number {
  let best = 0;
  let bestCount = 0;
  for (const [at, count] of byPoint) {
    if (count > bestCount || (count === bestCount && count > 0 && at < best)) {
      best = at;
      bestCount = count;
    }
  }
  return best;
}

/** [word, split point] per query word (ShardSearchOptions.splitChoices; a word absent from them takes no split). */
export type SplitChoices = [word: string, at: number][];

/** Every counted word's choice. */
export function chooseSplits(sums: ReadonlyMap<string, ReadonlyMap<number, number>>): SplitChoices {
  return [...sums].map(([word, byPoint]) => [word, chooseSplit(byPoint)]);
}
