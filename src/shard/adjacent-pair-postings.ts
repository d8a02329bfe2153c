// Which documents hold word B right after word A in one field (milli's word_pair_proximity_docids at
// proximity 1), for pairs of the shard's frequent words only. They let the proximity rule find the
// documents whose query terms are all adjacent (its best bucket) without reading every document of a
// bucket that two common words share (score-chain.ts, src/ranking/proximity-parts.ts).
//
// Layout: one sorted table of distinct pair keys (leftSlot * slotCount + rightSlot, slots numbering the
// frequent words) with, per key, a run of ascending doc ids in one Uint32Array: a few bytes per pair
// occurrence instead of one bitmap object per pair. Built in one pass over the forward index after a
// bulk load; documents written since are tracked in `changed` and read one by one instead (the table
// says nothing about them), until enough changed that a rebuild pays.
import roaring from 'roaring';
import { tokenCountAt, tokensStartAt, type ForwardIndex } from './forward-index.js';
import type { Vocabulary } from './vocabulary.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

/** A word is frequent (gets pair lists) in at least this many documents, or this share of the shard. */
const FREQUENT_MIN_DOCUMENTS = 64;
const FREQUENT_MIN_SHARE = 1 / 1000;
/** Slots must fit a pair key in 32 bits. */
const MAX_SLOTS = 0xffff;
/** Rebuild once this share of the shard's documents changed since the last build. */
const REBUILD_SHARE = 1 / 8;
const REBUILD_MIN_CHANGED = 1024;

/** Membership of a term's words: set[wordId] = 1 (a typed array: read once per token of every document checked). */
export type WordSet = Uint8Array;

export class AdjacentPairPostings {
  private slotOfWord = new Int32Array(0);
  private slotCount = 0;
  private keys = new Uint32Array(0);
  /** starts[i]..starts[i + 1]: the doc ids of keys[i] in `docIds`. */
  private starts = new Uint32Array(1);
  private docIds = new Uint32Array(0);
  private built = false;
  /** Documents written (or deleted) since the build: absent from or stale in the table. */
  private changed = new RoaringBitmap32();
  /** Bumped by each build (which changes which words are rare). */
  private generation = 0;
  /** Per word list (the derivations' own arrays, stable while cached): the documents of its rare words. */
  private readonly rareDocsMemo = new WeakMap<readonly number[], { generation: number; docs: RoaringBitmap32 }>();

  constructor(private readonly vocabulary: Vocabulary, private readonly forward: ForwardIndex,
    private readonly documents: RoaringBitmap32) {}

  /** A write to the document (upsert or delete). */
  markChanged(docId: number): void {
    if (this.built) this.changed.add(docId);
  }

  /** The table is worth consulting (built, and not mostly stale); rebuilds it when too stale. */
  private ready(): boolean {
    if (this.built && this.changed.size >= Math.max(REBUILD_MIN_CHANGED, this.documents.size * REBUILD_SHARE)) this.build();
    return this.built;
  }

  build(): void {
    const wordCount = this.vocabulary.size;
    const threshold = Math.max(FREQUENT_MIN_DOCUMENTS, Math.ceil(this.documents.size * FREQUENT_MIN_SHARE));
    const slotOfWord = new Int32Array(wordCount).fill(-1);
    let slotCount = 0;
    for (let wordId = 0; wordId < wordCount && slotCount < MAX_SLOTS; wordId++) {
      if (this.vocabulary.docs(wordId).size >= threshold) slotOfWord[wordId] = slotCount++;
    }
    // (key, docId) packed in one double each: a native numeric sort orders by key, then document.
    let packed = new Float64Array(1 << 16);
    let count = 0;
    const data = this.forward.arena;
    for (const docId of this.documents) {
      const offset = this.forward.offsetOf(docId);
      if (offset < 0) continue;
      const start = tokensStartAt(data, offset);
      const end = start + tokenCountAt(data, offset) * 2;
      for (let k = start; k + 2 < end; k += 2) {
        const left = slotOfWord[data[k]!]!;
        if (left < 0) continue;
        const right = slotOfWord[data[k + 2]!]!;
        if (right < 0 || !followsInField(data[k + 1]!, data[k + 3]!)) continue;
        if (count === packed.length) {
          const grown = new Float64Array(packed.length * 2);
          grown.set(packed);
          packed = grown;
        }
        packed[count++] = (left * slotCount + right) * 2 ** 32 + docId;
      }
    }
    const sorted = packed.subarray(0, count).sort();
    const keys: number[] = [];
    const starts: number[] = [];
    const docIds = new Uint32Array(count);
    let written = 0;
    let previousKey = -1;
    let previousDoc = -1;
    for (let i = 0; i < count; i++) {
      const key = Math.floor(sorted[i]! / 2 ** 32);
      const docId = sorted[i]! % 2 ** 32;
      if (key !== previousKey) {
        keys.push(key);
        starts.push(written);
        previousKey = key;
      } else if (docId === previousDoc) {
        continue; // the pair twice in one document
      }
      docIds[written++] = docId;
      previousDoc = docId;
    }
    starts.push(written);
    this.slotOfWord = slotOfWord;
    this.slotCount = slotCount;
    this.keys = Uint32Array.from(keys);
    this.starts = Uint32Array.from(starts);
    this.docIds = docIds.slice(0, written);
    this.changed = new RoaringBitmap32();
    this.built = true;
    this.generation++;
  }

  /**
   * Documents of `universe` where a word of `left` is followed, at the next position of the same
   * field, by a word of `right`, or holds a word of both. Null when the table is not built (the caller reads documents).
   * `leftIds`/`rightIds` list the words of each set, `isLeft`/`isRight` test membership.
   */
  adjacentDocs(leftIds: readonly number[], rightIds: readonly number[], universe: RoaringBitmap32,
    isLeft: WordSet, isRight: WordSet): RoaringBitmap32 | null {
    if (!this.ready()) return null;
    const frequentLeft = leftIds.filter((wordId) => this.slotOf(wordId) >= 0);
    const frequentRight = rightIds.filter((wordId) => this.slotOf(wordId) >= 0);
    const runs: RoaringBitmap32[] = [];
    for (const left of frequentLeft) {
      const base = this.slotOf(left) * this.slotCount;
      for (const right of frequentRight) {
        const index = binarySearch(this.keys, base + this.slotOf(right));
        if (index >= 0) runs.push(new RoaringBitmap32(this.docIds.subarray(this.starts[index]!, this.starts[index + 1]!)));
      }
    }
    const found = RoaringBitmap32.orMany(runs);
    found.andNotInPlace(this.changed);
    // One token standing for both terms counts as adjacent too (proximity.ts: same position, distance 1).
    const rightSet = new Set(rightIds);
    for (const wordId of leftIds) if (rightSet.has(wordId)) found.orInPlace(this.vocabulary.docs(wordId));
    found.andInPlace(universe);
    // Pairs with a rare word, and changed documents, are not in the table: read those documents.
    const rareLeft = leftIds.length === frequentLeft.length ? null : this.rareDocsOf(leftIds);
    const rareRight = rightIds.length === frequentRight.length ? null : this.rareDocsOf(rightIds);
    const toRead = RoaringBitmap32.and(universe, this.changed);
    if (rareLeft) toRead.orInPlace(rareLeft);
    if (rareRight) toRead.orInPlace(rareRight);
    toRead.andInPlace(universe);
    toRead.andNotInPlace(found);
    for (const docId of toRead) if (hasAdjacentPair(this.forward, docId, isLeft, isRight)) found.add(docId);
    return found;
  }

  private slotOf(wordId: number): number {
    return wordId < this.slotOfWord.length ? this.slotOfWord[wordId]! : -1;
  }

  private rareDocsOf(wordIds: readonly number[]): RoaringBitmap32 {
    const memo = this.rareDocsMemo.get(wordIds);
    if (memo !== undefined && memo.generation === this.generation) return memo.docs;
    const docs = RoaringBitmap32.orMany(wordIds.filter((wordId) => this.slotOf(wordId) < 0).map((wordId) => this.vocabulary.docs(wordId)));
    this.rareDocsMemo.set(wordIds, { generation: this.generation, docs });
    return docs;
  }
}

/** Whether some token of `isLeft` is followed at the next position of its field by one of `isRight`. */
export function hasAdjacentPair(forward: ForwardIndex, docId: number, isLeft: WordSet, isRight: WordSet): boolean {
  const data = forward.arena;
  const offset = forward.offsetOf(docId);
  if (offset < 0) return false;
  const start = tokensStartAt(data, offset);
  const end = start + tokenCountAt(data, offset) * 2;
  for (let k = start; k + 2 < end; k += 2) {
    if (isLeft[data[k]!] === 1 && isRight[data[k + 2]!] === 1 && followsInField(data[k + 1]!, data[k + 3]!)) return true;
  }
  return false;
}

/** Packed (field << 16 | position) keys: `next` is the position right after `key` in the same field. */
function followsInField(key: number, next: number): boolean {
  return next === key + 1 && (key & 0xffff) !== 0xffff;
}

function binarySearch(sorted: Uint32Array, value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = sorted[middle]!;
    if (found === value) return middle;
    if (found < value) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}
