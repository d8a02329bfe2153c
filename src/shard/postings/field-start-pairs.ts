// Which documents have a field whose words at positions 0 and 1 are a given pair of words, and
// whether that field holds those two words alone. For a query whose first two terms are exact words,
// these are the only documents exactness can rank above the rest ("a field starting with the query",
// "a field equal to the query"): for a two-word query they settle the rule without reading any
// document, for a longer one they narrow what is read (src/ranking/rules/exactness-parts.ts). Position
// postings alone could not tell one field from another: "feem", a word in most documents, is at
// position 0 of some field and at position 1 of another in thousands of documents that no field
// starts with "feem feem".
// Stored by the word at position 0 (CSR over word ids), then by the word at position 1, then by
// document: 9 bytes per field start (word, document, alone flag). Built in one pass over the forward
// index on first use or after a bulk load; documents written since are read one by one, until enough
// changed that a rebuild pays (changes-since-build.ts), as for sole-word-fields.ts.
import roaring from 'roaring';
import { BuiltOverDocuments } from './changes-since-build.js';
import { stepEndsAt } from '../sliced-jobs.js';
import { PassOffsets, tokenCountAt, tokensStartAt, type ForwardIndex } from '../documents/forward-index.js';
import { firstAtLeast } from '../pairs/pair-table.js';
import type { BitmapSource } from '../../ranking/scratch-bitmaps.js';
import { SnapshotFormatError, type SnapshotReader, type SnapshotWriter } from '../snapshot/snapshot-container.js';

type RoaringBitmap32 = roaring.RoaringBitmap32;

/** Documents with a field starting with a pair of words, and those of them where such a field is the pair alone. */
export interface FieldStartDocs {
  starts: RoaringBitmap32;
  alone: RoaringBitmap32;
}

export class FieldStartPairs extends BuiltOverDocuments {
  /** [first word]: where its entries begin in `seconds` / `docIds` / `alone` (wordCount + 1 entries). */
  private segmentStarts = new Uint32Array(1);
  /** Per entry, ordered by first word, then second word, then document: the word at position 1. */
  private seconds = new Uint32Array(0);
  private docIds = new Uint32Array(0);
  /** 1 when the entry's field has exactly these two words. */
  private alone = new Uint8Array(0);

  constructor(private readonly forward: ForwardIndex, documents: RoaringBitmap32) {
    super(documents);
  }

  /** Bytes held (for memory reports). */
  get byteLength(): number {
    return this.segmentStarts.byteLength + this.seconds.byteLength + this.docIds.byteLength + this.alone.byteLength;
  }

  /**
   * Two counting sorts (least significant digit first): by second word, then stably by first word,
   * over the entries of one pass in document order, so each (first, second) run keeps its documents
   * ascending. No comparison sort, no JS array per word.
   */
  protected *buildFrom(started: RoaringBitmap32): Generator<void, void, unknown> {
    const documents = this.documents.toUint32Array();
    // Typed arrays grown by doubling: JS arrays of millions of entries were a build's garbage.
    let firsts = new Uint32Array(Math.max(1024, documents.length * 2));
    let seconds = new Uint32Array(firsts.length);
    let docIds = new Uint32Array(firsts.length);
    let alone = new Uint8Array(firsts.length);
    let count = 0;
    let wordCount = 0;
    const offsets = new PassOffsets(this.forward, documents);
    for (let index = 0; index < documents.length; index++) {
      if (stepEndsAt(index)) {
        yield;
        offsets.resume();
      }
      const docId = documents[index]!;
      // Written since the build started: left out (it counts as changed).
      if (!started.isEmpty && started.has(docId)) continue;
      fieldStartsAt(this.forward.arena, offsets.at(index), (first, second, isAlone) => {
        if (count === firsts.length) {
          firsts = grown(firsts);
          seconds = grown(seconds);
          docIds = grown(docIds);
          alone = grown(alone);
        }
        firsts[count] = first;
        seconds[count] = second;
        docIds[count] = docId;
        alone[count++] = isAlone ? 1 : 0;
        if (first >= wordCount) wordCount = first + 1;
        if (second >= wordCount) wordCount = second + 1;
      });
    }
    yield;
    const bySecond = countingOrder(seconds, count, wordCount, null);
    yield;
    const order = countingOrder(firsts, count, wordCount, bySecond);
    yield;
    const segmentStarts = new Uint32Array(wordCount + 1);
    for (let k = 0; k < count; k++) segmentStarts[firsts[k]! + 1]!++;
    for (let word = 0; word < wordCount; word++) segmentStarts[word + 1]! += segmentStarts[word]!;
    const sortedSeconds = new Uint32Array(count);
    const sortedDocIds = new Uint32Array(count);
    const sortedAlone = new Uint8Array(count);
    for (let k = 0; k < count; k++) {
      const entry = order[k]!;
      sortedSeconds[k] = seconds[entry]!;
      sortedDocIds[k] = docIds[entry]!;
      sortedAlone[k] = alone[entry]!;
    }
    this.segmentStarts = segmentStarts;
    this.seconds = sortedSeconds;
    this.docIds = sortedDocIds;
    this.alone = sortedAlone;
    this.changes.markBuilt(started);
  }

  /** The snapshot member's part (BuiltOverDocuments): the four arrays as they are. */
  protected *savedStateSteps(writer: SnapshotWriter): Generator<void, Record<string, unknown>, unknown> {
    return { segmentStarts: writer.add(this.segmentStarts), seconds: writer.add(this.seconds), docIds: writer.add(this.docIds), alone: writer.add(this.alone) };
  }

  protected restoreState(reader: SnapshotReader, part: Readonly<Record<string, unknown>>): void {
    const segmentStarts = reader.uint32(part['segmentStarts'] as number);
    const seconds = reader.uint32(part['seconds'] as number);
    const docIds = reader.uint32(part['docIds'] as number);
    const alone = reader.bytes(part['alone'] as number) as Uint8Array<ArrayBuffer>;
    const count = seconds.length;
    if (segmentStarts.length === 0 || segmentStarts[segmentStarts.length - 1] !== count || docIds.length !== count || alone.length !== count) {
      throw new SnapshotFormatError('field start pairs');
    }
    this.segmentStarts = segmentStarts;
    this.seconds = seconds;
    this.docIds = docIds;
    this.alone = alone;
  }

  /**
   * The documents of `universe` with a field holding one of `firstWords` at position 0 and one of
   * `secondWords` at position 1, and those of them where that field has no other word (built on first
   * use). Both come from `bitmaps` (the caller's).
   */
  docsOf(firstWords: readonly number[], secondWords: readonly number[], universe: RoaringBitmap32, bitmaps: BitmapSource): FieldStartDocs {
    this.buildIfStale();
    const starts = bitmaps.empty();
    const aloneIds: number[] = [];
    for (const first of firstWords) {
      if (first + 1 >= this.segmentStarts.length) continue;
      const segmentStart = this.segmentStarts[first]!;
      const segmentEnd = this.segmentStarts[first + 1]!;
      if (segmentStart === segmentEnd) continue;
      for (const second of secondWords) {
        // The (first, second) run: its documents ascending, one after the other in docIds.
        const from = firstAtLeast(this.seconds, segmentStart, segmentEnd, second);
        const to = firstAtLeast(this.seconds, from, segmentEnd, second + 1);
        if (from === to) continue;
        starts.addMany(this.docIds.subarray(from, to));
        for (let k = from; k < to; k++) if (this.alone[k] === 1) aloneIds.push(this.docIds[k]!);
      }
    }
    const alone = bitmaps.fromIds(aloneIds);
    if (!starts.isEmpty) starts.andInPlace(universe);
    if (!alone.isEmpty) alone.andInPlace(universe);
    const unsettled = this.changes.unsettled(this.documents);
    if (unsettled.isEmpty || !unsettled.intersects(universe)) return { starts, alone };
    // The structure says nothing true of these: what it holds of them is dropped, they are read.
    starts.andNotInPlace(unsettled);
    alone.andNotInPlace(unsettled);
    const firstSet = new Set(firstWords);
    const secondSet = new Set(secondWords);
    const toRead = bitmaps.and(universe, unsettled).toUint32Array();
    for (let index = 0; index < toRead.length; index++) {
      const docId = toRead[index]!;
      fieldStartsOf(this.forward, docId, (first, second, isAlone) => {
        if (!firstSet.has(first) || !secondSet.has(second)) return;
        starts.add(docId);
        if (isAlone) alone.add(docId);
      });
    }
    return { starts, alone };
  }
}

/**
 * Calls `visit` for each word at position 0 and word at position 1 of one field of the document
 * (every combination, should a position hold several words), with whether the field has exactly
 * two words (the field's token count, as exactness counts a field's words).
 */
export function fieldStartsOf(forward: ForwardIndex, docId: number, visit: (first: number, second: number, alone: boolean) => void): void {
  fieldStartsAt(forward.arena, forward.offsetOf(docId), visit);
}

/** fieldStartsOf the document at this offset of the arena (-1: none). */
function fieldStartsAt(data: Uint32Array, offset: number, visit: (first: number, second: number, alone: boolean) => void): void {
  if (offset < 0) return;
  const start = tokensStartAt(data, offset);
  const end = start + tokenCountAt(data, offset) * 2;
  // Tokens come in field then position order: one field's tokens are one run.
  let fieldStart = start;
  while (fieldStart < end) {
    const field = data[fieldStart + 1]! >>> 16;
    let fieldEnd = fieldStart + 2;
    while (fieldEnd < end && data[fieldEnd + 1]! >>> 16 === field) fieldEnd += 2;
    const isAlone = fieldEnd - fieldStart === 4;
    for (let k = fieldStart; k < fieldEnd && (data[k + 1]! & 0xffff) === 0; k += 2) {
      for (let next = k + 2; next < fieldEnd; next += 2) {
        const position = data[next + 1]! & 0xffff;
        if (position > 1) break;
        if (position === 1) visit(data[k]!, data[next]!, isAlone);
      }
    }
    fieldStart = fieldEnd;
  }
}

/**
 * The indexes of the first `count` entries ordered by `keys` (below `keySpace`), stably: within a
 * key, in the order of `after` (null: entry order).
 */
function countingOrder(keys: Uint32Array, count: number, keySpace: number, after: Uint32Array | null): Uint32Array {
  const next = new Uint32Array(keySpace + 1);
  for (let k = 0; k < count; k++) next[keys[k]! + 1]!++;
  for (let key = 0; key < keySpace; key++) next[key + 1]! += next[key]!;
  const order = new Uint32Array(count);
  for (let k = 0; k < count; k++) {
    const entry = after === null ? k : after[k]!;
    order[next[keys[entry]!]!++] = entry;
  }
  return order;
}

/** A copy twice as long. */
function grown<T extends Uint32Array | Uint8Array>(array: T): T {
  const larger = new (array.constructor as new (length: number) => T)(array.length * 2);
  larger.set(array);
  return larger;
}
