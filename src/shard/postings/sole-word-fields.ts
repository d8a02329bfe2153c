// Which documents have a field made of one word alone (one token, at position 0), by that word
// (milli's field_id_word_count_docids at count 1): for a one-word query these are exactly the
// documents exactness ranks first ("a field equal to the query"), found without reading any of the
// thousands of documents whose field merely starts with the word (src/ranking/rules/exactness-parts.ts).
// Built in one pass over the forward index on first use or after a bulk load; documents written since are in
// `changed` and read one by one, until enough changed that a rebuild pays.
import roaring from 'roaring';
import { BuiltOverDocuments } from './changes-since-build.js';
import { SLICE_POLICY, stepEndsAt } from '../sliced-jobs.js';
import { PassOffsets, tokenCountAt, tokensStartAt, type ForwardIndex } from '../documents/forward-index.js';
import { OWNED_BITMAPS, type BitmapSource } from '../../ranking/scratch-bitmaps.js';
import { encodeBitmapsSteps, SerializedBitmaps } from '../snapshot/bitmap-list-codec.js';
import { SnapshotFormatError, type SnapshotReader, type SnapshotWriter } from '../snapshot/snapshot-container.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;


export class SoleWordFields extends BuiltOverDocuments {
  private byWord = new Map<number, RoaringBitmap32>();
  /**
   * As a snapshot kept them (restored): the words in ascending order and their lists, decoded on
   * first use into byWord (a restored shard has ~10^5 of them, most never read before the next build).
   */
  private stored: { wordIds: Uint32Array; lists: SerializedBitmaps } | null = null;

  constructor(private readonly forward: ForwardIndex, documents: RoaringBitmap32) {
    super(documents);
  }

  /** Bytes held (bitmaps by their portable size). */
  get byteLength(): number {
    let bytes = 0;
    for (const docs of this.byWord.values()) bytes += docs.getSerializationSizeInBytes('portable');
    return bytes + (this.stored === null ? 0 : this.stored.wordIds.byteLength + this.stored.lists.byteLength);
  }

  protected *buildFrom(started: RoaringBitmap32): Generator<void, void, unknown> {
    const lists = new Map<number, number[]>();
    const documents = this.documents.toUint32Array();
    const offsets = new PassOffsets(this.forward, documents);
    for (let index = 0; index < documents.length; index++) {
      if (stepEndsAt(index)) {
        yield;
        offsets.resume();
      }
      const docId = documents[index]!;
      soleWordsAt(this.forward.arena, offsets.at(index), (wordId) => {
        const list = lists.get(wordId);
        if (list === undefined) lists.set(wordId, [docId]);
        else if (list[list.length - 1] !== docId) list.push(docId);
      });
    }
    const byWord = new Map<number, RoaringBitmap32>();
    let made = 0;
    for (const [wordId, docIds] of lists) {
      byWord.set(wordId, new RoaringBitmap32(docIds));
      made += docIds.length + 64;
      if (made >= SLICE_POLICY.documentsPerStep * 16) {
        made = 0;
        yield;
      }
    }
    this.byWord = byWord;
    this.stored = null;
    this.changes.markBuilt(started);
  }

  /** The snapshot member's part (BuiltOverDocuments): the words and their lists, bitmaps back to back. */
  protected *savedStateSteps(writer: SnapshotWriter): Generator<void, Record<string, unknown>, unknown> {
    if (this.stored !== null) {
      // Restored and not rebuilt since: the lists as the snapshot kept them (those decoded are the same).
      const { wordIds, lists } = this.stored;
      return { wordIds: writer.add(wordIds), listBytes: writer.add(lists.encoded.bytes), listEnds: writer.add(lists.encoded.ends) };
    }
    const entries = [...this.byWord].sort((a, b) => a[0] - b[0]);
    const encoded = yield* encodeBitmapsSteps(entries.map(([, docs]) => docs));
    return { wordIds: writer.add(Uint32Array.from(entries, ([wordId]) => wordId)), listBytes: writer.add(encoded.bytes), listEnds: writer.add(encoded.ends) };
  }

  protected restoreState(reader: SnapshotReader, part: Readonly<Record<string, unknown>>): void {
    const wordIds = reader.uint32(part['wordIds'] as number);
    let lists: SerializedBitmaps;
    try {
      lists = new SerializedBitmaps(reader.bytes(part['listBytes'] as number), reader.uint32(part['listEnds'] as number));
    } catch (cause) {
      throw new SnapshotFormatError(`sole-word fields: ${(cause as Error).message}`);
    }
    if (lists.length !== wordIds.length) throw new SnapshotFormatError('sole-word fields');
    for (let k = 1; k < wordIds.length; k++) if (wordIds[k - 1]! >= wordIds[k]!) throw new SnapshotFormatError('sole-word fields order');
    this.byWord = new Map();
    this.stored = { wordIds, lists };
  }

  /** The word's list (decoded from the snapshot on first use), or undefined. */
  private listOf(wordId: number): RoaringBitmap32 | undefined {
    const list = this.byWord.get(wordId);
    if (list !== undefined || this.stored === null) return list;
    const { wordIds, lists } = this.stored;
    let low = 0;
    let high = wordIds.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (wordIds[middle]! < wordId) low = middle + 1;
      else high = middle;
    }
    if (low === wordIds.length || wordIds[low] !== wordId) return undefined;
    const decoded = lists.at(low);
    this.byWord.set(wordId, decoded);
    return decoded;
  }

  /**
   * Documents of `universe` with a one-word field holding one of the words (built on first use). The
   * result comes from `bitmaps` (a search's scratch ones: it is the caller's).
   */
  docsOf(wordIds: readonly number[], universe: RoaringBitmap32, bitmaps: BitmapSource = OWNED_BITMAPS): RoaringBitmap32 {
    this.buildIfStale();
    // Each word's list narrowed to the universe, one after the other (a one-word query has one or two
    // exact words): no union of the whole lists, no empty bitmap per missing word.
    let found: RoaringBitmap32 | null = null;
    for (const wordId of wordIds) {
      const list = this.listOf(wordId);
      if (list === undefined || !list.intersects(universe)) continue;
      if (found === null) found = bitmaps.and(list, universe);
      else found.orInPlace(bitmaps.and(list, universe));
    }
    const result = found ?? bitmaps.empty();
    const unsettled = this.changes.unsettled(this.documents);
    if (unsettled.isEmpty || !unsettled.intersects(universe)) return result;
    result.andNotInPlace(unsettled);
    const wanted = new Set(wordIds);
    const toRead = bitmaps.and(universe, unsettled).toUint32Array();
    for (let index = 0; index < toRead.length; index++) {
      const docId = toRead[index]!;
      soleWordsOf(this.forward, docId, (wordId) => {
        if (wanted.has(wordId)) result.add(docId);
      });
    }
    return result;
  }
}

/** Calls `visit` with the word of each field of the document that has exactly one token, at position 0. */
function soleWordsOf(forward: ForwardIndex, docId: number, visit: (wordId: number) => void): void {
  soleWordsAt(forward.arena, forward.offsetOf(docId), visit);
}

/** soleWordsOf the document at this offset of the arena (-1: none). */
function soleWordsAt(data: Uint32Array, offset: number, visit: (wordId: number) => void): void {
  if (offset < 0) return;
  const start = tokensStartAt(data, offset);
  const end = start + tokenCountAt(data, offset) * 2;
  // Tokens come in field then position order: a field's run is one token when its neighbours differ.
  for (let k = start; k < end; k += 2) {
    const field = data[k + 1]! >>> 16;
    if ((data[k + 1]! & 0xffff) !== 0) continue;
    if (k + 2 < end && data[k + 3]! >>> 16 === field) continue;
    if (k > start && data[k - 1]! >>> 16 === field) continue;
    visit(data[k]!);
  }
}
