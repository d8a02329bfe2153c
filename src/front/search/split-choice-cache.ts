// The front's choices of query words' splits for indexes of several shards spread over workers
// (protocol/split-choice.ts): per index storage key, word -> the split point the workers' summed counts
// gave. A search sends the choices of its query's words (ShardSearchOptions.splitChoices), so a query
// of words seen before takes one round, not two. The front cannot tell a query's words exactly (the
// index's tokenizer settings live in the workers): it looks up its letter-and-digit runs, lower-cased,
// as they are and without diacritics; a word missed so (another tokenization) costs the counting round,
// never a wrong answer (a choice is the word's own, whatever query it came from).
// Dropped whole when the scheduler reports committed index changes (any index: a uid may have moved to
// another storage key), and neither read nor kept while the commit fence says a commit is not yet
// handled (protocol/commit-fence.ts), so a search after a write's task succeeded counts again.
// Owner: one per server (src/index.ts), used by the SearchDispatcher; bounded by words.
import type { CommitFence } from '../../protocol/commit-fence.js';
import type { SplitChoices } from '../../protocol/split-choice.js';

/** Words kept at most over every index (a few dozen bytes each): dropped whole past it. */
export const MAX_SPLIT_CHOICE_WORDS = 65_536;

const WORD_RUNS = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}/gu;

export class SplitChoiceCache {
  private readonly byIndex = new Map<string, Map<string, number>>();
  private words = 0;
  /** Bumped at each drop: counts gathered across it are not kept. */
  private generationCount = 0;

  constructor(private readonly fence: CommitFence | null = null) {}

  /** The kept choices of the query's words (null: none kept). */
  choicesFor(indexKey: string, q: string): SplitChoices | null {
    if (this.words === 0) return null;
    const choices = this.byIndex.get(indexKey);
    if (choices === undefined || (this.fence !== null && !this.fence.cachesHold())) return null;
    let out: SplitChoices | null = null;
    for (const [run] of q.toLowerCase().matchAll(WORD_RUNS)) {
      for (const word of [run, run.normalize('NFD').replace(MARKS, '')]) {
        const at = choices.get(word);
        if (at !== undefined && (out === null || !out.some(([known]) => known === word))) (out ??= []).push([word, at]);
      }
    }
    return out;
  }

  /** The generation to hand back to keep() once the counts are in. */
  generation(): number {
    return this.generationCount;
  }

  keep(indexKey: string, choices: SplitChoices, generation: number): void {
    if (generation !== this.generationCount || (this.fence !== null && !this.fence.cachesHold())) return;
    if (this.words + choices.length > MAX_SPLIT_CHOICE_WORDS) this.forget();
    let kept = this.byIndex.get(indexKey);
    if (kept === undefined) this.byIndex.set(indexKey, (kept = new Map()));
    for (const [word, at] of choices) {
      if (!kept.has(word)) this.words++;
      kept.set(word, at);
    }
  }

  /** Committed index changes: every choice may be stale. */
  forget(): void {
    this.generationCount++;
    this.byIndex.clear();
    this.words = 0;
  }

  /** Words kept (metrics, tests). */
  get size(): number {
    return this.words;
  }
}
