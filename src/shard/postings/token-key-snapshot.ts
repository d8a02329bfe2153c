// TokenKeyPostings' snapshot member (derived-structure.ts): per word its kind of lists (unbuilt, in
// the arena, (key, docId) pairs, bitmaps by key), the pairs back to back, the bitmaps as portable
// roaring bytes (decoded per word on first use), the long-tail arena and the rebuild bookkeeping.
import type roaring from 'roaring';
import { encodeBitmapsSteps, SerializedBitmaps } from '../snapshot/bitmap-list-codec.js';
import { SnapshotFormatError, type SnapshotReader, type SnapshotWriter } from '../snapshot/snapshot-container.js';
import type { RestoredTokenKeyPostings, TokenKeyPostingsState } from './token-key-postings.js';

type RoaringBitmap32 = roaring.RoaringBitmap32;

const enum ListKind { Unbuilt = 0, InArena = 1, Pairs = 2, Bitmaps = 3 }

/** Section numbers (and counts) of one TokenKeyPostings in a snapshot's meta (as format 3 named them: `rank`, `position`). */
export interface TokenKeySections {
  kinds: number;
  pairEnds: number;
  pairs: number;
  keyCounts: number;
  bitmapBytes: number;
  bitmapEnds: number;
  arena: number;
  arenaStarts: number;
  arenaEnds: number;
  builtTokens: number;
  writtenSinceBuild: number;
}

export function* encodeTokenKeyPostings(writer: SnapshotWriter, state: TokenKeyPostingsState): Generator<void, TokenKeySections> {
  const kinds = new Uint8Array(state.byWord.length);
  const pairArrays: Uint32Array[] = [];
  const keyCounts: number[] = [];
  const bitmaps: RoaringBitmap32[] = [];
  // Listed in one step: a search may build a word's lists between two steps (byWord is its live array).
  state.byWord.forEach((lists, wordId) => {
    if (lists === undefined) kinds[wordId] = ListKind.Unbuilt;
    else if (lists === null) kinds[wordId] = ListKind.InArena;
    else if (lists instanceof Uint32Array) {
      kinds[wordId] = ListKind.Pairs;
      pairArrays.push(lists);
    } else {
      kinds[wordId] = ListKind.Bitmaps;
      keyCounts.push(lists.length);
      bitmaps.push(...lists);
    }
  });
  const pairEnds = new Uint32Array(pairArrays.length);
  let total = 0;
  pairArrays.forEach((pairs, k) => { total += pairs.length; pairEnds[k] = total; });
  const pairs = new Uint32Array(total);
  pairArrays.forEach((array, k) => pairs.set(array, k === 0 ? 0 : pairEnds[k - 1]!));
  yield;
  const encoded = yield* encodeBitmapsSteps(bitmaps);
  return {
    kinds: writer.add(kinds),
    pairEnds: writer.add(pairEnds),
    pairs: writer.add(pairs),
    keyCounts: writer.add(Uint32Array.from(keyCounts)),
    bitmapBytes: writer.add(encoded.bytes),
    bitmapEnds: writer.add(encoded.ends),
    arena: writer.add(state.arena),
    arenaStarts: writer.add(state.arenaStarts),
    arenaEnds: writer.add(state.arenaEnds),
    builtTokens: state.builtTokens,
    writtenSinceBuild: state.writtenSinceBuild,
  };
}

export function decodeTokenKeyPostings(reader: SnapshotReader, sections: TokenKeySections): RestoredTokenKeyPostings {
  const kinds = reader.bytes(sections.kinds);
  const pairEnds = reader.uint32(sections.pairEnds);
  const pairs = reader.uint32(sections.pairs).slice();
  const keyCounts = reader.uint32(sections.keyCounts);
  const bitmaps = new SerializedBitmaps(reader.bytes(sections.bitmapBytes), reader.uint32(sections.bitmapEnds));
  const byWord: RestoredTokenKeyPostings['byWord'][number][] = new Array(kinds.length);
  let pairList = 0;
  let keyList = 0;
  let bitmap = 0;
  for (let wordId = 0; wordId < kinds.length; wordId++) {
    switch (kinds[wordId]) {
      case ListKind.Unbuilt: byWord[wordId] = undefined; break;
      case ListKind.InArena: byWord[wordId] = null; break;
      case ListKind.Pairs: {
        const start = pairList === 0 ? 0 : pairEnds[pairList - 1]!;
        const end = pairEnds[pairList++]!;
        if (end === undefined || end < start || end > pairs.length) throw new SnapshotFormatError('pair lists');
        byWord[wordId] = pairs.subarray(start, end);
        break;
      }
      case ListKind.Bitmaps: {
        const count = keyCounts[keyList++]!;
        if (count === undefined || bitmap + count > bitmaps.length) throw new SnapshotFormatError('key bitmaps');
        byWord[wordId] = { first: bitmap, count };
        bitmap += count;
        break;
      }
      default: throw new SnapshotFormatError('list kind');
    }
  }
  return {
    byWord, serializedLists: bitmaps, arena: reader.uint32(sections.arena).slice(), arenaStarts: reader.uint32(sections.arenaStarts).slice(),
    arenaEnds: reader.uint32(sections.arenaEnds).slice(), builtTokens: sections.builtTokens, writtenSinceBuild: sections.writtenSinceBuild,
  };
}
