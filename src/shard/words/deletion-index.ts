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
// The walk's words start with the query's first letter, so keys are per first letter (a key whose
// deletion took the first letter still names it): a query finds only nodes of its own letter.
// Keys are polynomial hashes (mod 2^32) of the deletions, computed from the prefix's hashes without
// making strings; a collision only adds a run to walk. Nodes are told apart exactly (their words
// compared), so none is ever left without its keys. Letters are UTF-16 units, as the walks read them.
// test/unit/deletion-index.test.ts holds the walks it restricts to the walks over every word.
import { packedWords, walkFuzzy, type FuzzyVisitor } from './fuzzy-walk.js';
import type { LexiconListMemos } from './lexicon.js';
import { SLICE_POLICY, stepEndsEvery } from '../sliced-jobs.js';
import { HASH_BASE, hashPowers, mixKey } from './prefix-hash.js';

/** Depths keyed, by typo budget (index 1: one typo, 2: two typos): a query uses the deepest L <= n - budget. */
export const DEPTHS: readonly (readonly number[])[] = [[], [5, 6, 7, 8], [7]];
const MAX_DEPTH = 8;
/** Words of typo-disabled attributes start with this unit (derivations.ts EXACT_ATTRIBUTE_MARK): never walked, not kept. */
const MARK_UNIT = 1;
const MIN_SLOTS = 1 << 12;

/** HASH_BASE^k mod 2^32. */
const POWERS = hashPowers(MAX_DEPTH);

/** A DeletionIndex's whole state (exportState, fromState); `nodeWords` are the lexicon's strings, `nodeCapacity` the node arrays' length. */
export interface DeletionIndexState {
  baseOffsets: Uint32Array<ArrayBuffer>;
  baseEntries: Int32Array<ArrayBuffer>;
  baseShift: number;
  keySlots: Int32Array<ArrayBuffer>;
  keyCount: number;
  entryNodes: Int32Array<ArrayBuffer>;
  entryNext: Int32Array<ArrayBuffer>;
  entryCount: number;
  nodeSlots: Int32Array<ArrayBuffer>;
  nodeWords: readonly string[];
  nodeCapacity: number;
}

/** The nodes a query may find words under (DeletionIndex.candidates): the first `depth` letters of each of `words` name one. */
export interface DeletionCandidates {
  depth: number;
  /** One word per node (its first `depth` letters are the node's prefix); valid until the next call. */
  words: string[];
  /** The nodes' numbers, as `words`. */
  nodes: number[];
  /** How many nodes the index has (a bound of their numbers). */
  nodeCount: number;
}

/**
 * Owner: the shard's Lexicon (built over its words at quiet time with the shard's other search
 * structures, ShardIndex.prepareSteps; then told of each word added; built again there once the words
 * added since are many; dropped when the lexicon adopts other words, and restored with a snapshot's:
 * snapshot/lexicon-snapshot.ts). Two parts: the base, made
 * in one go by DeletionIndex.build (its (key, node) entries sorted by bucket: 8 bytes an entry, 2 to 4
 * bytes of bucket offsets), and the words added since (a hash table of distinct keys, 8 bytes a slot
 * at most 3/4 full, and 8 bytes an entry). An entry is a node under one of its keys (a node's
 * deletions, deduplicated: at most L at one typo, L(L-1)/2 at two); a node costs ~20 bytes (100,000
 * npm rows: 52,000 words, 91,000 nodes, 1.04M entries, 14 MiB; built in ~90-120 ms of CPU).
 */
export class DeletionIndex {
  /** The base's entries by bucket (a key's top bits): (key, node) pairs baseEntries[2i, 2i + 1] for i in [baseOffsets[b], baseOffsets[b + 1]) (one cache line for both). */
  private baseOffsets = new Uint32Array(2);
  private baseEntries = new Int32Array(0);
  private baseShift = 31;
  /** Words added after the base: (key, first entry + 1) pairs, one per distinct key, linear probing; entry + 1 = 0: an empty slot. */
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
  /** Each node's first letter (its word's first UTF-16 unit). */
  private nodeFirsts = new Uint16Array(MIN_SLOTS);
  private stamp = 0;
  /** Prefix hashes of the word being added or probed (scratch), and its letters' differences (see collectKeys). */
  private readonly hashes = new Int32Array(MAX_DEPTH + 1);
  private readonly deltas = new Int32Array(MAX_DEPTH);
  private readonly keys: number[] = [];
  /** The first letter of the word being added or probed (keys are per first letter). */
  private firstUnit = 0;
  private readonly found: DeletionCandidates = { depth: 0, words: [], nodes: [], nodeCount: 0 };

  /**
   * An index of the words of `lists`, in steps (SLICE_POLICY.wordsPerStep words a step, then the sort
   * in three): its (key, node) entries are gathered, then laid out by bucket. `adding` is told of it at
   * once, so words added meanwhile (add) go to its second part.
   */
  static *build(lists: readonly (readonly string[])[], adding: (index: DeletionIndex) => void): Generator<void, DeletionIndex, unknown> {
    const index = new DeletionIndex();
    adding(index);
    let pairs = new Int32Array(1 << 16);
    let count = 0;
    const collect = (node: number) => {
      for (const key of index.keys) {
        if (2 * count === pairs.length) pairs = grown(pairs);
        pairs[2 * count] = key;
        pairs[2 * count + 1] = node;
        count++;
      }
    };
    let at = 0;
    for (const list of lists) {
      for (const word of list) {
        if (stepEndsEvery(++at, SLICE_POLICY.wordsPerStep)) yield;
        index.addWord(word, collect);
      }
    }
    yield;
    let bits = 1;
    while (1 << bits < count && bits < 30) bits++;
    const shift = 32 - bits;
    // Entries by bucket (the key's top bits), in the order gathered within a bucket: a stable radix
    // sort in two passes of half the bits each (a scatter into ~10^6 buckets at once missed the cache
    // on nearly every entry, most of the build's time), then the buckets' offsets in one pass.
    const lowBits = bits >>> 1;
    const sorted = radixPass(radixPass(pairs, count, shift, lowBits), count, shift + lowBits, bits - lowBits);
    yield;
    const offsets = new Uint32Array((1 << bits) + 1);
    let bucket = 0;
    for (let k = 0; k < count; k++) {
      const entryBucket = sorted[2 * k]! >>> shift;
      while (bucket < entryBucket) offsets[++bucket] = k;
    }
    while (bucket < 1 << bits) offsets[++bucket] = count;
    index.baseOffsets = offsets;
    index.baseEntries = sorted;
    index.baseShift = shift;
    return index;
  }

  /**
   * The index as it is, for a snapshot (snapshot/lexicon-snapshot.ts): its arrays themselves (views,
   * no copies: a write, the only thing changing them, cancels the save) and counts.
   */
  exportState(): DeletionIndexState {
    return {
      baseOffsets: this.baseOffsets, baseEntries: this.baseEntries, baseShift: this.baseShift,
      keySlots: this.keySlots, keyCount: this.keyCount, entryNodes: this.entryNodes, entryNext: this.entryNext, entryCount: this.entryCount,
      nodeSlots: this.nodeSlots, nodeWords: this.nodeWords, nodeCapacity: this.nodeStamps.length,
    };
  }

  /**
   * The index exportState gave (its arrays adopted, not copied), answering and taking words as it did;
   * throws an Error when the state does not hold together (sizes, node numbers out of range).
   */
  static fromState(state: DeletionIndexState): DeletionIndex {
    const { baseOffsets, baseEntries, baseShift, keySlots, keyCount, entryNodes, entryNext, entryCount, nodeSlots, nodeWords, nodeCapacity } = state;
    const nodeCount = nodeWords.length;
    const isTable = (slots: Int32Array) => slots.length >= 2 && (slots.length & (slots.length - 1)) === 0;
    if (!Number.isInteger(baseShift) || baseShift < 2 || baseShift > 31 || baseOffsets.length !== 2 ** (32 - baseShift) + 1
      || baseEntries.length % 2 !== 0 || baseOffsets[baseOffsets.length - 1] !== baseEntries.length / 2
      || !isTable(keySlots) || !isTable(nodeSlots) || !Number.isInteger(keyCount) || 4 * keyCount > 3 * (keySlots.length >>> 1)
      || 4 * nodeCount > 3 * (nodeSlots.length >>> 1) || !Number.isInteger(entryCount) || entryCount < 0 || entryCount > entryNodes.length
      || entryNext.length !== entryNodes.length || !Number.isInteger(nodeCapacity) || nodeCapacity < nodeCount) throw new Error('deletion index sizes');
    for (let b = 0; b + 1 < baseOffsets.length; b++) if (baseOffsets[b]! > baseOffsets[b + 1]!) throw new Error('deletion index offsets');
    const isNode = (node: number) => node >= 0 && node < nodeCount;
    for (let at = 1; at < baseEntries.length; at += 2) if (!isNode(baseEntries[at]!)) throw new Error('deletion index nodes');
    for (let entry = 0; entry < entryCount; entry++) {
      if (!isNode(entryNodes[entry]!) || entryNext[entry]! < 0 || entryNext[entry]! > entryCount) throw new Error('deletion index entries');
    }
    for (let at = 1; at < keySlots.length; at += 2) if (keySlots[at]! < 0 || keySlots[at]! > entryCount) throw new Error('deletion index keys');
    for (let at = 1; at < nodeSlots.length; at += 2) if (nodeSlots[at]! < 0 || nodeSlots[at]! > nodeCount) throw new Error('deletion index nodes');
    const index = new DeletionIndex();
    index.baseOffsets = baseOffsets;
    index.baseEntries = baseEntries;
    index.baseShift = baseShift;
    index.keySlots = keySlots;
    index.keyCount = keyCount;
    index.entryNodes = entryNodes;
    index.entryNext = entryNext;
    index.entryCount = entryCount;
    index.nodeSlots = nodeSlots;
    index.nodeStamps = new Int32Array(nodeCapacity);
    index.nodeFirsts = new Uint16Array(nodeCapacity);
    for (let node = 0; node < nodeCount; node++) {
      index.nodeWords.push(nodeWords[node]!);
      index.nodeFirsts[node] = nodeWords[node]!.charCodeAt(0);
    }
    return index;
  }

  get nodeCount(): number {
    return this.nodeWords.length;
  }

  /** Entries of the base, and of the words added after it. */
  get entries(): { base: number; added: number } {
    return { base: this.baseEntries.length >>> 1, added: this.entryCount };
  }

  /** Bytes held (the words are the lexicon's own strings). */
  get byteLength(): number {
    return 4 * (this.baseOffsets.length + this.baseEntries.length + this.keySlots.length + this.entryNodes.length
      + this.entryNext.length + this.nodeSlots.length + this.nodeStamps.length) + this.nodeFirsts.byteLength + 8 * this.nodeWords.length;
  }

  /** Adds a word of the lexicon (words of typo-disabled attributes are left out: no walk reaches them). */
  add(word: string): void {
    this.addWord(word, (node) => this.addKeys(node));
  }

  /** Adds the word's new nodes, handing each to `keep` with this.keys its keys. */
  private addWord(word: string, keep: (node: number) => void): void {
    if (word.length === 0 || word.charCodeAt(0) === MARK_UNIT) return;
    const length = Math.min(word.length, MAX_DEPTH);
    const hashes = this.hashes;
    this.firstUnit = word.charCodeAt(0);
    for (let k = 0; k < length; k++) hashes[k + 1] = Math.imul(hashes[k]!, HASH_BASE) + word.charCodeAt(k) | 0;
    for (let L = 1; L <= length; L++) {
      const oneTypo = DEPTHS[1]!.includes(L);
      const twoTypos = DEPTHS[2]!.includes(L);
      if (!oneTypo && !twoTypos) continue;
      const node = this.addNode(word, L);
      if (node < 0) continue;
      this.prepareDeltas(L);
      this.keys.length = 0;
      if (oneTypo) this.collectKeys(L, 1);
      if (twoTypos) this.collectKeys(L, 2);
      keep(node);
    }
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
    this.firstUnit = word.charCodeAt(0);
    for (let k = 0; k < L; k++) hashes[k + 1] = Math.imul(hashes[k]!, HASH_BASE) + word.charCodeAt(k) | 0;
    this.prepareDeltas(L);
    this.keys.length = 0;
    this.collectKeys(L, budget);
    const found = this.found;
    found.depth = L;
    found.words.length = 0;
    found.nodes.length = 0;
    found.nodeCount = this.nodeWords.length;
    const stamp = ++this.stamp;
    const first = word.charCodeAt(0);
    const keySlots = this.keySlots;
    const mask = (keySlots.length >>> 1) - 1;
    const { baseOffsets, baseEntries, baseShift } = this;
    for (const key of this.keys) {
      const bucket = key >>> baseShift;
      for (let at = baseOffsets[bucket]!, end = baseOffsets[bucket + 1]!; at < end; at++) {
        if (baseEntries[2 * at] === key) this.found1(baseEntries[2 * at + 1]!, stamp, first);
      }
      if (this.entryCount === 0) continue;
      let at = slotOf(key) & mask;
      while (keySlots[2 * at + 1] !== 0 && keySlots[2 * at] !== key) at = (at + 1) & mask;
      for (let entry = keySlots[2 * at + 1]! - 1; entry >= 0; entry = this.entryNext[entry]! - 1) this.found1(this.entryNodes[entry]!, stamp, first);
    }
    return found;
  }

  /** A node under a key the query probed: found once, when it starts with the query's first letter (the walk's run). */
  private found1(node: number, stamp: number, first: number): void {
    // Keys are per first letter: another letter here is a collision.
    if (this.nodeStamps[node] === stamp || this.nodeFirsts[node] !== first) return;
    this.nodeStamps[node] = stamp;
    this.found.words.push(this.nodeWords[node]!);
    this.found.nodes.push(node);
  }

  /** The node of word[0, L) (hashes filled), added when new; -1 when it was there. */
  private addNode(word: string, L: number): number {
    const key = mixKey(this.hashes[L]!, 64 + L);
    const nodeSlots = this.nodeSlots;
    const mask = (nodeSlots.length >>> 1) - 1;
    let at = slotOf(key) & mask;
    for (; nodeSlots[2 * at + 1] !== 0; at = (at + 1) & mask) {
      if (nodeSlots[2 * at] === key && samePrefix(this.nodeWords[nodeSlots[2 * at + 1]! - 1]!, word, L)) return -1;
    }
    const node = this.nodeWords.length;
    this.nodeWords.push(word);
    if (node >= this.nodeStamps.length) {
      this.nodeStamps = grown(this.nodeStamps);
      const firsts = new Uint16Array(this.nodeStamps.length);
      firsts.set(this.nodeFirsts);
      this.nodeFirsts = firsts;
    }
    this.nodeFirsts[node] = word.charCodeAt(0);
    nodeSlots[2 * at] = key;
    nodeSlots[2 * at + 1] = node + 1;
    if (4 * this.nodeWords.length > 3 * (nodeSlots.length >>> 1)) this.nodeSlots = rehash(nodeSlots);
    return node;
  }

  /** Adds this.keys' entries of the node to the second part. */
  private addKeys(node: number): void {
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
   * Adds to this.keys the distinct keys of the `budget`-letter deletions of the first L letters (hashes and
   * deltas filled): the hash of s without letter a is hashes[L] + deltas[a] * B^(L-1-a), without a and
   * b (a < b) hashes[L] + deltas[a] * B^(L-2-a) + deltas[b] * B^(L-1-b) (polynomial hashes, mod 2^32).
   */
  private collectKeys(L: number, budget: number): void {
    const keys = this.keys;
    const whole = this.hashes[L]!;
    const deltas = this.deltas;
    // The walk's run is the words of the query's first letter: keys are per first letter (even a deletion of it).
    const tag = 16 * budget + L + Math.imul(this.firstUnit, 256);
    for (let a = 0; a < L; a++) {
      if (budget === 1) {
        pushDistinct(keys, mixKey(Math.imul(deltas[a]!, POWERS[L - 1 - a]!) + whole | 0, tag));
        continue;
      }
      if (a === L - 1) break;
      const first = Math.imul(deltas[a]!, POWERS[L - 2 - a]!) + whole | 0;
      for (let b = a + 1; b < L; b++) pushDistinct(keys, mixKey(Math.imul(deltas[b]!, POWERS[L - 1 - b]!) + first | 0, tag));
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

/**
 * The first `count` (key, node) pairs of `pairs`, stably ordered by the `width` bits of the key from
 * bit `from` (a counting sort: one digit of the radix sort of DeletionIndex.build).
 */
function radixPass(pairs: Int32Array, count: number, from: number, width: number): Int32Array<ArrayBuffer> {
  const mask = (1 << width) - 1;
  const starts = new Uint32Array(mask + 2);
  for (let k = 0; k < count; k++) starts[((pairs[2 * k]! >>> from) & mask) + 1]!++;
  for (let digit = 0; digit <= mask; digit++) starts[digit + 1]! += starts[digit]!;
  const out = new Int32Array(2 * count);
  for (let k = 0; k < count; k++) {
    const at = starts[(pairs[2 * k]! >>> from) & mask]!++;
    out[2 * at] = pairs[2 * k]!;
    out[2 * at + 1] = pairs[2 * k + 1]!;
  }
  return out;
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


/** A key's first slot (its low bits are already mixed; the slot uses other bits than the table's other probes). */
function slotOf(key: number): number {
  return key >>> 0;
}

/**
 * Where each node's run lies in one list (DeletionIndex.runsIn), kept in the lexicon's memos for the
 * list (LexiconListMemos.runs) while it keeps its length: starts[node] - 1 (0: not looked up yet), ends[node].
 */
export interface NodeRuns {
  /** The index whose node numbers these are (its DeletionCandidates object: an index built again numbers its nodes anew). */
  owner: DeletionCandidates;
  length: number;
  starts: Int32Array;
  ends: Int32Array;
}

/** Lists shorter than this find their nodes' runs by binary search at each walk (walkCandidateRuns). */
export const NODE_RUNS_MIN_WORDS = 4096;

/**
 * walkFuzzy over the runs of `candidates`' nodes in sorted[from, to) (the words of the query's first
 * letter), in list order: the same calls of `visit` as walkFuzzy over [from, to) (see the header).
 * Returns false if the visitor stopped the walk.
 */
export function walkCandidateRuns(sorted: readonly string[], query: string, maxDistance: number, asPrefix: boolean, visit: FuzzyVisitor,
  candidates: DeletionCandidates, from: number, to: number, memos: LexiconListMemos | null): boolean {
  if (from >= to) return true;
  const { codes, starts } = packedWords(sorted, memos);
  // A node's run, found by two binary searches (cache misses, most of a restricted walk's time), is looked up once per list
  // of at least NODE_RUNS_MIN_WORDS words (the memo is two arrays by node, 8 bytes a node of the whole index, made again
  // whenever the list grows: for the lexicon's small fresh list, 1.5 MB at each write slice at 100k npm rows).
  const memoized = memos !== null && sorted.length >= NODE_RUNS_MIN_WORDS;
  let known = memoized ? memos.runs.get(sorted) : undefined;
  const nodeCount = candidates.nodeCount;
  if (memoized && (known === undefined || known.owner !== candidates || known.length !== sorted.length || known.starts.length < nodeCount)) {
    const fresh = known === undefined || known.owner !== candidates || known.length !== sorted.length;
    const size = Math.max(1024, 2 * nodeCount);
    const next: NodeRuns = { owner: candidates, length: sorted.length, starts: new Int32Array(size), ends: new Int32Array(size) };
    if (!fresh) {
      next.starts.set(known!.starts);
      next.ends.set(known!.ends);
    }
    memos.runs.set(sorted, next);
    known = next;
  }
  const runs: [number, number][] = [];
  for (let k = 0; k < candidates.words.length; k++) {
    const node = candidates.nodes[k]!;
    let run: [number, number];
    if (known !== undefined && known.starts[node] !== 0) run = [known.starts[node]! - 1, known.ends[node]!];
    else {
      // Within the first letter's words (every node here starts with that letter): the whole list would find the same run.
      run = runOf(codes, starts, candidates.words[k]!, candidates.depth, from, to);
      if (known !== undefined) {
        known.starts[node] = run[0] + 1;
        known.ends[node] = run[1];
      }
    }
    if (run[0] < run[1]) runs.push(run);
  }
  // Distinct nodes of one depth: disjoint runs.
  runs.sort((a, b) => a[0] - b[0]);
  for (const [start, end] of runs) if (!walkFuzzy(sorted, query, maxDistance, asPrefix, visit, start, end, memos)) return false;
  return true;
}
