// Many roaring bitmaps <-> one byte buffer (each in the portable format, back to back) and the end
// offset of each: a snapshot section pair written and read without a file or an object per bitmap.
import roaring from 'roaring';
import { finishSteps, SLICE_POLICY, stepEndsEvery } from '../sliced-jobs.js';

const { RoaringBitmap32 } = roaring;
type RoaringBitmap32 = roaring.RoaringBitmap32;

export interface EncodedBitmaps {
  bytes: Uint8Array;
  /** ends[k]: where bitmap k's bytes end (it starts where k - 1 ends, or at 0). */
  ends: Uint32Array;
}

export function encodeBitmaps(bitmaps: readonly RoaringBitmap32[]): EncodedBitmaps {
  return finishSteps(encodeBitmapsSteps(bitmaps));
}

/** encodeBitmaps in steps of SLICE_POLICY.bitmapsPerStep bitmaps (a quiet-time snapshot save runs between searches). */
export function* encodeBitmapsSteps(bitmaps: readonly RoaringBitmap32[]): Generator<void, EncodedBitmaps> {
  const ends = new Uint32Array(bitmaps.length);
  let total = 0;
  for (let k = 0; k < bitmaps.length; k++) {
    if (stepEndsEvery(k, SLICE_POLICY.bitmapsPerStep)) yield;
    total += bitmaps[k]!.getSerializationSizeInBytes('portable');
    if (total > 0xffffffff) throw new Error('bitmap list over 4 GiB');
    ends[k] = total;
  }
  const bytes = Buffer.allocUnsafe(total);
  let start = 0;
  for (let k = 0; k < bitmaps.length; k++) {
    if (stepEndsEvery(k, SLICE_POLICY.bitmapsPerStep)) yield;
    bitmaps[k]!.serialize('portable', bytes.subarray(start, ends[k]!));
    start = ends[k]!;
  }
  return { bytes, ends };
}

export function decodeBitmaps(bytes: Uint8Array, ends: Uint32Array): RoaringBitmap32[] {
  const bitmaps = new Array<RoaringBitmap32>(ends.length);
  let start = 0;
  for (let k = 0; k < ends.length; k++) {
    const end = ends[k]!;
    if (end < start || end > bytes.byteLength) throw new RangeError('bitmap list bounds');
    bitmaps[k] = RoaringBitmap32.deserialize(bytes.subarray(start, end), 'portable');
    start = end;
  }
  if (start !== bytes.byteLength) throw new RangeError('bitmap list length');
  return bitmaps;
}

/**
 * Encoded bitmaps decoded one at a time, when first asked: a restored shard holds tens of thousands
 * of posting lists and most are never read before the next write; decoding them all up front was most
 * of a snapshot's load time (the cost is per bitmap, not per byte).
 */
export class SerializedBitmaps {
  constructor(private readonly bytes: Uint8Array, private readonly ends: Uint32Array) {
    let start = 0;
    for (let k = 0; k < ends.length; k++) {
      if (ends[k]! < start) throw new RangeError('bitmap list bounds');
      start = ends[k]!;
    }
    if (start !== bytes.byteLength) throw new RangeError('bitmap list length');
  }

  get length(): number {
    return this.ends.length;
  }

  /** The bytes and ends as given (a snapshot saving them again). */
  get encoded(): EncodedBitmaps {
    return { bytes: this.bytes, ends: this.ends };
  }

  /** Bytes held (encoded). */
  get byteLength(): number {
    return this.bytes.byteLength + this.ends.byteLength;
  }

  at(k: number): RoaringBitmap32 {
    const start = k === 0 ? 0 : this.ends[k - 1]!;
    return RoaringBitmap32.deserialize(this.bytes.subarray(start, this.ends[k]!), 'portable');
  }
}
