// The front's choices of query words' splits for indexes of several shards spread over workers
// (protocol/split-choice.ts): index storage key + q -> the choices the workers' counts gave, so a query
// asked again takes one round, not two. Keyed by the query text, not by word: the front cannot tell a
// query's words (the index's tokenizer settings) and a new word costs the counting round either way.
// Dropped whole when the scheduler reports committed index changes (any index: a uid may have moved to
// another storage key), and neither read nor kept while the commit fence says a commit is not yet
// handled (protocol/commit-fence.ts), so a search after a write's task succeeded counts again.
// Owner: one per server (src/index.ts), used by the SearchDispatcher; bounded by entries.
import type { CommitFence } from '../../protocol/commit-fence.js';
import type { SplitChoices } from '../../protocol/split-choice.js';

/** Entries kept at most (oldest first out): a few hundred bytes each. */
export const MAX_SPLIT_CHOICE_ENTRIES = 4096;

export class SplitChoiceCache {
  private readonly entries = new Map<string, SplitChoices>();
  /** Bumped at each drop: counts gathered across it are not kept. */
  private generationCount = 0;

  constructor(private readonly fence: CommitFence | null = null) {}

  get(indexKey: string, q: string): SplitChoices | undefined {
    if (this.entries.size === 0 || (this.fence !== null && !this.fence.cachesHold())) return undefined;
    return this.entries.get(`${indexKey}\u0000${q}`);
  }

  /** The generation to hand back to set() once the counts are in. */
  generation(): number {
    return this.generationCount;
  }

  set(indexKey: string, q: string, choices: SplitChoices, generation: number): void {
    if (generation !== this.generationCount || (this.fence !== null && !this.fence.cachesHold())) return;
    const key = `${indexKey}\u0000${q}`;
    this.entries.delete(key);
    if (this.entries.size >= MAX_SPLIT_CHOICE_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, choices);
  }

  /** Committed index changes: every choice may be stale. */
  forget(): void {
    this.generationCount++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
