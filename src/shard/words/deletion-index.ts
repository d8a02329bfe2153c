// Where in the lexicon a typo walk can find anything: a deletion-neighbourhood index over the words'
// first letters, so a walk (fuzzy-walk.ts) runs over the few runs of words that may match instead of
// every word starting with the query's first letter. Pigeonhole on the first L letters: if a prefix X
// of a word V is within k edits of a query W of n letters (optimal string alignment: substitution,
// insertion, deletion, adjacent swap), and L <= n - k, then V[0, L) and W[0, L) have a common
// subsequence of L - k letters (each edit leaves at most one letter of each side's first L unmatched:
// a letter the window of the other side no longer reaches counts as the edit's), i.e. deleting k
// letters from each makes them equal. A whole word within k edits is a prefix of itself within k, so
// the same holds for walks of whole words. The index keeps, per depth L of a few depths (DEPTHS), every
// distinct L-letter prefix of the lexicon (a node: the words starting with it are one run of each
// sorted list) under the keys of its k-letter deletions; a query probes its own L-prefix's deletions
// and walks only the runs of the nodes found, in list order: the same words, in the same order, as
// the walk over every word (which the visitor may stop), because no word outside them can match.
// Keys are polynomial hashes (mod 2^32) of the deletions, computed from the prefix's hashes without
// making strings; a collision only adds a run to walk. Nodes are told apart exactly (their words
// compared), so none is ever left without its keys. Letters are UTF-16 units, as the walks read them.
// test/unit/deletion-index.test.ts holds the walks it restricts to the walks over every word.
import { packedWords, walkFuzzy, type FuzzyVisitor } from './fuzzy-walk.js';
import type { LexiconListMemos } from './lexicon.js';

/** Depths keyed, by typo budget (index 1: one typo, 2: two typos): a query uses the deepest L <= n - budget. */
export const DEPTHS: readonly (readonly number[])[] = [[], [5, 6, 7, 8], [7]];
const MAX_DEPTH = 8;
const HASH_BASE = 0x01000193;
/** Words of typo-disabled attributes start with this unit (derivations.ts EXACT_ATTRIBUTE_MARK): never walked, not kept. */
const MARK_UNIT = 1;
const MIN_SLOTS = 1 << 12;

/** HASH_BASE^k mod 2^32. */
const POWERS = (() => {
  const powers = new Int32Array(MAX_DEPTH + 1);
  powers[0] = 1;
  for (let k = 1; k <= MAX_DEPTH; k++) powers[k] = Math.imul(powers[k - 1]!, HASH_BASE);
  return powers;
})();

/** The nodes a query may find words under (DeletionIndex.candidates): the first `depth` letters of each of `words` name one. */
export interface DeletionCandidates {
  depth: number;
  /** One word per node (its first `depth` letters are the node's prefix); valid until the next call. */
  words: string[];
}

/**
 * Owner: the shard's Lexicon (built over its words at quiet time with the shard's other search
 * structures, ShardIndex.prepareSteps; then told of each word added; dropped when the lexicon adopts a
 * snapshot's words). Size: 8 bytes an entry (a node under one of its keys: a node's deletions,
 * deduplicated, at most L at one typo, L(L-1)/2 at two), 8 bytes a slot of distinct keys (at most 3/4
 * full), 20 bytes a node (100,000 npm rows: SIZE_FIGURES).
 */
export class DeletionIndex {
  /** (key, first entry + 1) pairs, one per distinct key, open addressing with linear probing; entry + 1 = 0: an empty slot. */
  private keySlots = new Int32Array(2 * MIN_SLOTS);
  private keyCount = 0;
  /** Entry e: a node under its key (entryNodes[e]), and the key's next entry + 1 (entryNext[e]; 0: none). */
  private entryNodes = new Int32Array(MIN_SLOTS);
  private entryNext = new Int32Array(MIN_SLOTS);
  private entryCount = 0;
  /** (prefix key, node + 1) pairs: the nodes by prefix, told apart by their words' letters. */
  private nodeSlots = new Int32Array(2 * MIN_SLOTS);
  private readonly nodeWords: string[] = [];
  private nodeStamps = new Int32Array(MIN_SLOTS);
  private stamp = 0;
  /** Prefix hashes of the word being added or probed (scratch), and its letters' differences (see collectKeys). */
  private readonly hashes = new Int32Array(MAX_DEPTH + 1);
  private readonly deltas = new Int32Array(MAX_DEPTH);
  private readonly keys: number[] = [];
  private readonly found: DeletionCandidates = { depth: 0, words: [] };

  get nodeCount(): number {
    return this.nodeWords.length;
  }

  get keyEntries(): number {
    return this.entryCount;
  }

  /** Bytes held (the words are the lexicon's own strings). */
  get byteLength(): number {
    return 4 * (this.keySlots.length + this.entryNodes.length + this.entryNext.length + this.nodeSlots.length + this.nodeStamps.length)
      + 8 * this.nodeWords.length;
  }

  /** Adds a word of the lexicon (words of typo-disabled attributes are left out: no walk reaches them). */
  add(word: string): void {
    if (word.length === 0 || word.charCodeAt(0) === MARK_UNIT) return;
    const length = Math.min(word.length, MAX_DEPTH);
    const hashes = this.hashes;
    for (let k = 0; k < length; k++) hashes[k + 1] = Math.imul(hashes[k]!, HASH_BASE) + word.charCodeAt(k) | 0;
    for (let L = 1; L <= length; L++) {
      const oneTypo = DEPTHS[1]!.includes(L);
      const twoTypos = DEPTHS[2]!.includes(L);
      if (!oneTypo && !twoTypos) continue;
      const node = this.addNode(word, L);
      if (node < 0) continue;
      this.prepareDeltas(L);
      if (oneTypo) this.addKeys(node, L, 1);
      if (twoTypos) this.addKeys(node, L, 2);
    }
  }

  /** Frees the slack of the entry arrays (after a build: they grow by doubling). */
  trim(): void {
    this.entryNodes = this.entryNodes.slice(0, Math.max(this.entryCount, 1));
    this.entryNext = this.entryNext.slice(0, Math.max(this.entryCount, 1));
  }

  /**
   * The nodes whose runs hold every word of the lexicon starting with `word`'s first letter that is
   * within `budget` edits of `word` (or, for a prefix walk, has a prefix within it), and some more;
   * null when the index cannot tell (no depth fits the word's length, another budget, a marked word).
   */
  candidates(word: string, budget: number): DeletionCandidates | null {
    const depths = DEPTHS[budget];
    if (depths === undefined || word.length === 0 || word.charCodeAt(0) === MARK_UNIT) return null;
    let L = 0;
    for (const depth of depths) if (depth <= word.length - budget && depth > L) L = depth;
    if (L === 0) return null;
    const hashes = this.hashes;
    for (let k = 0; k < L; k++) hashes[k + 1] = Math.imul(hashes[k]!, HASH_BASE) + word.charCodeAt(k) | 0;
    this.prepareDeltas(L);
    this.collectKeys(L, budget);
    const found = this.found;
    found.depth = L;
    found.words.length = 0;
    const stamp = ++this.stamp;
    const first = word.charCodeAt(0);
    const keySlots = this.keySlots;
    const mask = (keySlots.length >>> 1) - 1;
    for (const key of this.keys) {
      let at = slotOf(key) & mask;
      while (keySlots[2 * at + 1] !== 0 && keySlots[2 * at] !== key) at = (at + 1) & mask;
      for (let entry = keySlots[2 * at + 1]! - 1; entry >= 0; entry = this.entryNext[entry]! - 1) {
        const node = this.entryNodes[entry]!;
        if (this.nodeStamps[node] === stamp) continue;
        this.nodeStamps[node] = stamp;
        const nodeWord = this.nodeWords[node]!;
        // The walk's run is the words starting with the query's first letter.
        if (nodeWord.charCodeAt(0) === first) found.words.push(nodeWord);
      }
    }
    return found;
  }

  /** The node of word[0, L) (hashes filled), added when new; -1 when it was there. */
  private addNode(word: string, L: number): number {
    const key = mix(this.hashes[L]!, 64 + L);
    const nodeSlots = this.nodeSlots;
    const mask = (nodeSlots.length >>> 1) - 1;
    let at = slotOf(key) & mask;
    for (; nodeSlots[2 * at + 1] !== 0; at = (at + 1) & mask) {
      if (nodeSlots[2 * at] === key && samePrefix(this.nodeWords[nodeSlots[2 * at + 1]! - 1]!, word, L)) return -1;
    }
    const node = this.nodeWords.length;
    this.nodeWords.push(word);
    if (node >= this.nodeStamps.length) this.nodeStamps = grown(this.nodeStamps);
    nodeSlots[2 * at] = key;
    nodeSlots[2 * at + 1] = node + 1;
    if (4 * this.nodeWords.length > 3 * (nodeSlots.length >>> 1)) this.nodeSlots = rehash(nodeSlots);
    return node;
  }

  private addKeys(node: number, L: number, budget: number): void {
    this.collectKeys(L, budget);
    for (const key of this.keys) {
      const keySlots = this.keySlots;
      const mask = (keySlots.length >>> 1) - 1;
      let at = slotOf(key) & mask;
      while (keySlots[2 * at + 1] !== 0 && keySlots[2 * at] !== key) at = (at + 1) & mask;
      const entry = this.entryCount++;
      if (entry >= this.entryNodes.length) {
        this.entryNodes = grown(this.entryNodes);
        this.entryNext = grown(this.entryNext);
      }
      this.entryNodes[entry] = node;
      // A new key's slot is empty: its head + 1 is 0, which ends the list.
      this.entryNext[entry] = keySlots[2 * at + 1]!;
      if (keySlots[2 * at + 1] === 0) {
        keySlots[2 * at] = key;
        this.keyCount++;
      }
      keySlots[2 * at + 1] = entry + 1;
      if (4 * this.keyCount > 3 * (keySlots.length >>> 1)) this.keySlots = rehash(keySlots);
    }
  }

  /** deltas[i] = hashes[i] - hashes[i + 1] (deleting letter i takes deltas[i] times a power off the hash). */
  private prepareDeltas(L: number): void {
    for (let i = 0; i < L; i++) this.deltas[i] = this.hashes[i]! - this.hashes[i + 1]! | 0;
  }

  /**
   * this.keys = the distinct keys of the `budget`-letter deletions of the first L letters (hashes and
   * deltas filled): the hash of s without letter a is hashes[L] + deltas[a] * B^(L-1-a), without a and
   * b (a < b) hashes[L] + deltas[a] * B^(L-2-a) + deltas[b] * B^(L-1-b) (polynomial hashes, mod 2^32).
   */
  private collectKeys(L: number, budget: number): void {
    const keys = this.keys;
    keys.length = 0;
    const whole = this.hashes[L]!;
    const deltas = this.deltas;
    const tag = 16 * budget + L;
    for (let a = 0; a < L; a++) {
      if (budget === 1) {
        pushDistinct(keys, mix(Math.imul(deltas[a]!, POWERS[L - 1 - a]!) + whole | 0, tag));
        continue;
      }
      if (a === L - 1) break;
      const first = Math.imul(deltas[a]!, POWERS[L - 2 - a]!) + whole | 0;
      for (let b = a + 1; b < L; b++) pushDistinct(keys, mix(Math.imul(deltas[b]!, POWERS[L - 1 - b]!) + first | 0, tag));
    }
  }
}

/**
 * [from, to) of `sorted` (within [from, to)) whose words start with word[0, L): the run of a node
 * (DeletionCandidates), read from the list's packed letters (fuzzy-walk.ts packedWords).
 */
export function runOf(codes: Uint16Array, starts: Uint32Array, word: string, L: number, from: number, to: number): [number, number] {
  /** The list's word i against word[0, L): < 0 before it, 0 starting with it, > 0 after. */
  const compare = (i: number): number => {
    const start = starts[i]!;
    const end = starts[i + 1]!;
    for (let k = 0; k < L; k++) {
      if (start + k >= end) return -1;
      const difference = codes[start + k]! - word.charCodeAt(k);
      if (difference !== 0) return difference;
    }
    return 0;
  };
  let low = from;
  let high = to;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(middle) < 0) low = middle + 1;
    else high = middle;
  }
  const start = low;
  high = to;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(middle) <= 0) low = middle + 1;
    else high = middle;
  }
  return [start, low];
}

function samePrefix(a: string, b: string, L: number): boolean {
  for (let k = 0; k < L; k++) if (a.charCodeAt(k) !== b.charCodeAt(k)) return false;
  return true;
}

function pushDistinct(keys: number[], key: number): void {
  for (let k = 0; k < keys.length; k++) if (keys[k] === key) return;
  keys.push(key);
}

function grown(array: Int32Array): Int32Array<ArrayBuffer> {
  const larger = new Int32Array(2 * array.length);
  larger.set(array);
  return larger;
}

/** The same (key, value) pairs in a table twice as large (keys distinct or not). */
function rehash(slots: Int32Array): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(2 * slots.length);
  const mask = (grown.length >>> 1) - 1;
  for (let old = 0; old < slots.length; old += 2) {
    if (slots[old + 1] === 0) continue;
    const key = slots[old]!;
    let at = slotOf(key) & mask;
    while (grown[2 * at + 1] !== 0) at = (at + 1) & mask;
    grown[2 * at] = key;
    grown[2 * at + 1] = slots[old + 1]!;
  }
  return grown;
}

/** The key of a hash under a tag (a depth and budget), mixed (murmur3's finalizer). */
function mix(hash: number, tag: number): number {
  let h = hash ^ Math.imul(tag, 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** A key's first slot (its low bits are already mixed; the slot uses other bits than the table's other probes). */
function slotOf(key: number): number {
  return key >>> 0;
}

/**
 * walkFuzzy over the runs of `candidates`' nodes in sorted[from, to) (the words of the query's first
 * letter), in list order: the same calls of `visit` as walkFuzzy over [from, to) (see the header).
 * Returns false if the visitor stopped the walk.
 */
export function walkCandidateRuns(sorted: readonly string[], query: string, maxDistance: number, asPrefix: boolean, visit: FuzzyVisitor,
  candidates: DeletionCandidates, from: number, to: number, memos: LexiconListMemos | null): boolean {
  if (from >= to) return true;
  const { codes, starts } = packedWords(sorted, memos);
  const runs: [number, number][] = [];
  for (const word of candidates.words) {
    const run = runOf(codes, starts, word, candidates.depth, from, to);
    if (run[0] < run[1]) runs.push(run);
  }
  // Distinct nodes of one depth: disjoint runs.
  runs.sort((a, b) => a[0] - b[0]);
  for (const [start, end] of runs) if (!walkFuzzy(sorted, query, maxDistance, asPrefix, visit, start, end, memos)) return false;
  return true;
}
