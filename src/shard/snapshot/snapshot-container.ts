// The binary container of a shard snapshot file: a fixed header, a JSON meta block, then sections
// (typed arrays written as they are, 8-byte aligned so a reader takes views of them without copying).
//   [magic 8][container version u32][meta length u32][crc32 of everything after the header u32][0 u32][total length f64]
//   [meta JSON, padded] [section 0, padded] [section 1, padded] ...
// The CRC catches a corrupt file, the total length a truncated one: either makes the reader throw,
// and the caller rebuilds the shard from LMDB instead.
import { closeSync, fstatSync, openSync, read, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { finishSteps, SLICE_POLICY } from '../sliced-jobs.js';

const MAGIC = Buffer.from('SKEINSNP', 'latin1');
const CONTAINER_VERSION = 1;
const HEADER_BYTES = 32;
const ALIGN = 8;

type Section = Uint8Array;

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function padding(length: number): number {
  return (ALIGN - (length % ALIGN)) % ALIGN;
}

/** Collects sections; `chunks` lays out the file (write them in order). */
export class SnapshotWriter {
  private readonly sections: Section[] = [];

  /** Adds a typed array (or bytes) as is; returns its section number. */
  add(view: ArrayBufferView): number {
    this.sections.push(bytesOf(view));
    return this.sections.length - 1;
  }

  addJson(value: unknown): number {
    return this.add(Buffer.from(JSON.stringify(value), 'utf8'));
  }

  /** addJson of an array of strings, stringified SLICE_POLICY.wordsPerStep items a step (the same text). */
  *addJsonArraySteps(items: readonly string[]): Generator<void, number> {
    const parts: string[] = [];
    for (let start = 0; start < items.length; start += SLICE_POLICY.wordsPerStep) {
      if (start > 0) yield;
      parts.push(JSON.stringify(items.slice(start, start + SLICE_POLICY.wordsPerStep)).slice(1, -1));
    }
    return this.add(Buffer.from(`[${parts.join(',')}]`, 'utf8'));
  }

  chunks(meta: Record<string, unknown>): Uint8Array[] {
    return finishSteps(this.chunksSteps(meta));
  }

  /** chunks in steps: the checksum over SLICE_POLICY.bytesPerStep bytes a step. */
  *chunksSteps(meta: Record<string, unknown>): Generator<void, Uint8Array[]> {
    const metaBytes = Buffer.from(JSON.stringify({ ...meta, sectionLengths: this.sections.map((section) => section.byteLength) }), 'utf8');
    const body: Uint8Array[] = [metaBytes, new Uint8Array(padding(metaBytes.length))];
    let cursor = HEADER_BYTES + metaBytes.length + padding(metaBytes.length);
    for (const section of this.sections) {
      body.push(section, new Uint8Array(padding(section.byteLength)));
      cursor += section.byteLength + padding(section.byteLength);
    }
    let crc = 0;
    // Empty chunks skipped: zlib.crc32 answers 0 for an empty view of an empty ArrayBuffer, whatever the running value.
    for (const chunk of body) {
      for (let start = 0; start < chunk.byteLength; start += SLICE_POLICY.bytesPerStep) {
        crc = crc32(chunk.subarray(start, start + SLICE_POLICY.bytesPerStep), crc);
        yield;
      }
    }
    const header = Buffer.alloc(HEADER_BYTES);
    MAGIC.copy(header, 0);
    header.writeUInt32LE(CONTAINER_VERSION, 8);
    header.writeUInt32LE(metaBytes.length, 12);
    header.writeUInt32LE(crc >>> 0, 16);
    header.writeDoubleLE(cursor, 24);
    return [header, ...body];
  }
}

export class SnapshotFormatError extends Error {}

/** A contiguous range of the file held in memory. */
interface FilePart {
  offset: number;
  bytes: Uint8Array;
}

/**
 * A snapshot's meta and sections; throws SnapshotFormatError when the bytes are not a snapshot, or
 * are truncated or corrupt. Read from a file, the biggest section gets an ArrayBuffer of its own,
 * so a caller may keep it without copying while the rest of the file is collected.
 */
export class SnapshotReader {
  readonly meta: Record<string, unknown>;
  /** Each section's bytes (a view into one of the file's parts). */
  private readonly sections: Uint8Array[] = [];

  /** The whole file in memory. */
  static fromBytes(file: Uint8Array): SnapshotReader {
    const header = checkedHeader(file, file.byteLength);
    const metaLength = header.readUInt32LE(12);
    const layout = sectionLayout(parseMeta(file.subarray(HEADER_BYTES, HEADER_BYTES + metaLength)), metaLength, file.byteLength);
    const parts = [{ offset: 0, bytes: file }];
    return new SnapshotReader(layout.meta, layout.ranges, parts, header.readUInt32LE(16), checksumOf(parts));
  }

  /** Reads the file in three parts: up to the biggest section, that section, the rest. ENOENT is thrown as is. */
  static fromFile(path: string): SnapshotReader {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const read = (offset: number, length: number): Uint8Array => readNow(fd, offset, length);
      const { layout, expectedCrc, partRanges } = fileLayout(size, read);
      const parts = partRanges.map(([offset, length]) => ({ offset, bytes: read(offset, length) }));
      return new SnapshotReader(layout.meta, layout.ranges, parts, expectedCrc, checksumOf(parts));
    } finally {
      closeSync(fd);
    }
  }

  /**
   * fromFile, read on libuv's threads READ_CHUNK_BYTES at a time while this thread checksums the chunks
   * already read: the copy out of the page cache and the CRC overlap instead of following each other
   * (at 1M npm rows each took ~150 ms of a ~460 ms restore). The header and meta are read before it
   * returns and every read is queued then (libuv runs four at a time), so the reads go on while this
   * thread is busy elsewhere (loading the worker's modules: shard/worker-entry.ts); the chunks are
   * checksummed in order as they arrive. The same checks and parts as fromFile: the reader is only
   * given once the whole file's CRC matched. ENOENT is thrown as is, at once.
   */
  static fromFileAsync(path: string, chunkBytes = READ_CHUNK_BYTES): Promise<SnapshotReader> {
    const fd = openSync(path, 'r');
    let reads: Promise<void>[] = [];
    try {
      const { layout, expectedCrc, partRanges } = fileLayout(fstatSync(fd).size, (offset, length) => readNow(fd, offset, length));
      const parts = partRanges.map(([offset, length]) => ({ offset, bytes: new Uint8Array(length) }));
      const chunks: [Uint8Array, number][] = [];
      for (const part of parts) {
        for (let start = 0; start < part.bytes.byteLength; start += chunkBytes) {
          chunks.push([part.bytes.subarray(start, Math.min(part.bytes.byteLength, start + chunkBytes)), part.offset + start]);
        }
      }
      reads = chunks.map(([bytes, position]) => readFully(fd, bytes, position));
      // Observed now: one failing before its turn must not be an unhandled rejection (the await below still throws it).
      for (const read of reads) read.catch(() => {});
      return (async () => {
        let crc = 0;
        try {
          for (let k = 0; k < chunks.length; k++) {
            await reads[k];
            crc = crc32(chunks[k]![0], crc);
          }
        } finally {
          // No read left running on the descriptor when it is closed.
          await Promise.allSettled(reads);
          closeSync(fd);
        }
        return new SnapshotReader(layout.meta, layout.ranges, parts, expectedCrc, crc);
      })();
    } catch (cause) {
      void Promise.allSettled(reads).then(() => closeSync(fd));
      throw cause;
    }
  }

  private constructor(meta: Record<string, unknown>, ranges: [number, number][], parts: FilePart[], expectedCrc: number, crc: number) {
    if ((crc >>> 0) !== expectedCrc) throw new SnapshotFormatError('checksum');
    this.meta = meta;
    for (const [offset, length] of ranges) {
      const part = parts.find((candidate) => candidate.offset <= offset && offset + length <= candidate.offset + candidate.bytes.byteLength);
      if (!part) throw new SnapshotFormatError('section bounds');
      this.sections.push(part.bytes.subarray(offset - part.offset, offset - part.offset + length));
    }
  }

  private section(section: number): Uint8Array {
    const bytes = this.sections[section];
    if (bytes === undefined) throw new SnapshotFormatError(`no section ${section}`);
    return bytes;
  }

  /** A view of the section's bytes. */
  bytes(section: number): Uint8Array {
    return this.section(section);
  }

  /** Whether the section's view spans a whole ArrayBuffer of its own (keeping it keeps nothing else alive). */
  ownsBuffer(section: number): boolean {
    const bytes = this.section(section);
    return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  }

  uint32(section: number): Uint32Array<ArrayBuffer> {
    const bytes = this.section(section);
    return aligned(bytes) ? new Uint32Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength / 4) : new Uint32Array(bytes.slice().buffer);
  }

  uint16(section: number): Uint16Array<ArrayBuffer> {
    const bytes = this.section(section);
    if (bytes.byteLength % 2 !== 0) throw new SnapshotFormatError(`section ${section} length`);
    return bytes.byteOffset % 2 === 0 ? new Uint16Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength / 2) : new Uint16Array(bytes.slice().buffer);
  }

  int32(section: number): Int32Array<ArrayBuffer> {
    const bytes = this.section(section);
    return aligned(bytes) ? new Int32Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength / 4) : new Int32Array(bytes.slice().buffer);
  }

  json(section: number): unknown {
    const bytes = this.section(section);
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  }
}

/** Bytes read per read of fromFileAsync. */
const READ_CHUNK_BYTES = 8 * 2 ** 20;

/** `length` bytes at `offset`, in an ArrayBuffer of their own (no pool: the biggest section's view may outlive the other parts). */
function readNow(fd: number, offset: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let done = 0; done < length;) {
    const count = readSync(fd, bytes, done, length - done, offset + done);
    if (count === 0) throw new SnapshotFormatError('truncated');
    done += count;
  }
  return bytes;
}

/** Fills `bytes` from `position` on libuv's threads; the first read is queued before it returns. */
function readFully(fd: number, bytes: Uint8Array, position: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const from = (done: number): void => {
      read(fd, bytes, done, bytes.byteLength - done, position + done, (error, count) => {
        if (error) reject(error);
        else if (count === 0) reject(new SnapshotFormatError('truncated'));
        else if (done + count < bytes.byteLength) from(done + count);
        else resolve();
      });
    };
    from(0);
  });
}

/**
 * The checked header and layout of a file of `size` bytes (its first bytes read by `read`), and the
 * three parts to read it in: up to the biggest section, that section (an ArrayBuffer of its own, so a
 * caller may keep it without keeping the rest), the rest.
 */
function fileLayout(size: number, read: (offset: number, length: number) => Uint8Array): {
  layout: { meta: Record<string, unknown>; ranges: [number, number][] }; expectedCrc: number; partRanges: [number, number][];
} {
  const header = checkedHeader(read(0, Math.min(size, HEADER_BYTES)), size);
  const metaLength = header.readUInt32LE(12);
  if (HEADER_BYTES + metaLength > size) throw new SnapshotFormatError('meta');
  const layout = sectionLayout(parseMeta(read(HEADER_BYTES, metaLength)), metaLength, size);
  let biggest = 0;
  layout.ranges.forEach(([, length], k) => { if (length > layout.ranges[biggest]![1]) biggest = k; });
  const [bigOffset, bigLength] = layout.ranges[biggest] ?? [HEADER_BYTES, 0];
  const partRanges: [number, number][] = [
    [HEADER_BYTES, bigOffset - HEADER_BYTES], [bigOffset, bigLength], [bigOffset + bigLength, size - bigOffset - bigLength],
  ];
  return { layout, expectedCrc: header.readUInt32LE(16), partRanges };
}

/** The CRC of the parts, which cover [HEADER_BYTES, end) in order (an in-memory file's one part also holds the header: skipped). */
function checksumOf(parts: readonly FilePart[]): number {
  let crc = 0;
  for (const { offset, bytes } of parts) {
    const covered = offset < HEADER_BYTES ? bytes.subarray(HEADER_BYTES - offset) : bytes;
    if (covered.byteLength > 0) crc = crc32(covered, crc);
  }
  return crc;
}

function checkedHeader(start: Uint8Array, fileLength: number): Buffer {
  if (start.byteLength < HEADER_BYTES || !MAGIC.equals(start.subarray(0, 8))) throw new SnapshotFormatError('not a snapshot');
  const header = Buffer.from(start.buffer, start.byteOffset, HEADER_BYTES);
  if (header.readUInt32LE(8) !== CONTAINER_VERSION) throw new SnapshotFormatError('container version');
  if (header.readDoubleLE(24) !== fileLength) throw new SnapshotFormatError('truncated or overlong');
  return header;
}

function parseMeta(bytes: Uint8Array): Record<string, unknown> {
  try {
    const meta = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as unknown;
    if (meta === null || typeof meta !== 'object') throw new Error('not an object');
    return meta as Record<string, unknown>;
  } catch {
    throw new SnapshotFormatError('meta');
  }
}

/** [offset, byteLength] of each section, checked to tile the file exactly. */
function sectionLayout(meta: Record<string, unknown>, metaLength: number, fileLength: number): { meta: Record<string, unknown>; ranges: [number, number][] } {
  const lengths = meta['sectionLengths'];
  if (!Array.isArray(lengths)) throw new SnapshotFormatError('sections');
  const ranges: [number, number][] = [];
  let cursor = HEADER_BYTES + metaLength + padding(metaLength);
  for (const length of lengths) {
    if (!Number.isInteger(length) || length < 0 || cursor + length > fileLength) throw new SnapshotFormatError('section bounds');
    ranges.push([cursor, length as number]);
    cursor += (length as number) + padding(length as number);
  }
  if (cursor !== fileLength) throw new SnapshotFormatError('section bounds');
  return { meta, ranges };
}

function aligned(bytes: Uint8Array): boolean {
  if (bytes.byteLength % 4 !== 0) throw new SnapshotFormatError('section length');
  return bytes.byteOffset % 4 === 0;
}
