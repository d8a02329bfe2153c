import * as flatbuffers from 'flatbuffers';
import type { ErrorBody } from '../errors/index.js';
import { ErrorBody as ErrorBodyTable } from './generated/protocol_generated.js';

/**
 * Copies the finished builder bytes into an ArrayBuffer of their own, so the message can be
 * put in a transfer list (zero-copy across threads) without dragging the builder's larger buffer.
 */
export function finishToTransferable(builder: flatbuffers.Builder, root: flatbuffers.Offset): ArrayBuffer {
  builder.finish(root);
  const bytes = builder.asUint8Array();
  const out = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(out).set(bytes);
  return out;
}

/**
 * One flatbuffers Builder used again for each message its owner encodes (a query batch, a batch's
 * results): a new one per message allocated and zero-filled its buffer each time. What a message
 * leaves behind is copied out (finishToTransferable), so the next one may clear it; a buffer grown
 * past `keepBytes` by a rare large message is not kept.
 */
export class ReusedBuilder {
  private builder: flatbuffers.Builder;
  /**
   * A string's UTF-8 bytes on their way into the builder (createString): flatbuffers' own createString
   * makes a new Uint8Array per string (TextEncoder.encode), ~35 µs of the shard worker per search of 21
   * highlighted hits. Grows to the largest string up to `keepBytes`; longer strings take flatbuffers' path.
   */
  private textBytes = new Uint8Array(4096);

  constructor(private readonly initialBytes = 16 * 1024, private readonly keepBytes = 1024 * 1024) {
    this.builder = new flatbuffers.Builder(initialBytes);
  }

  /** The builder, empty. */
  take(): flatbuffers.Builder {
    if (this.builder.dataBuffer().capacity() > this.keepBytes) this.builder = new flatbuffers.Builder(this.initialBytes);
    else this.builder.clear();
    return this.builder;
  }

  /** builder.createString(text), encoded through this builder's scratch bytes. */
  createString(builder: flatbuffers.Builder, text: string): flatbuffers.Offset {
    const most = text.length * 3;
    if (most > this.keepBytes) return builder.createString(text);
    if (most > this.textBytes.length) this.textBytes = new Uint8Array(Math.min(this.keepBytes, Math.max(most, this.textBytes.length * 2)));
    const { written } = TEXT_ENCODER.encodeInto(text, this.textBytes);
    return builder.createString(this.textBytes.subarray(0, written));
  }
}

const TEXT_ENCODER = new TextEncoder();

export function byteBufferOf(message: ArrayBuffer | Uint8Array): flatbuffers.ByteBuffer {
  return new flatbuffers.ByteBuffer(message instanceof Uint8Array ? message : new Uint8Array(message));
}

export function writeError(builder: flatbuffers.Builder, error: ErrorBody | null): flatbuffers.Offset {
  if (!error) return 0;
  const code = builder.createString(error.code);
  const message = builder.createString(error.message);
  return ErrorBodyTable.createErrorBody(builder, code, message);
}

export function readError(table: ErrorBodyTable | null): ErrorBody | null {
  if (!table) return null;
  const code = table.code() ?? 'internal';
  return { message: table.message() ?? '', code, type: 'internal', link: '' };
}

export function writeStrings(builder: flatbuffers.Builder, values: string[]): flatbuffers.Offset[] {
  return values.map((value) => builder.createString(value));
}

export function readStrings(length: number, at: (i: number) => string): string[] {
  const out = new Array<string>(length);
  for (let i = 0; i < length; i++) out[i] = at(i);
  return out;
}
