// Document payloads are decoded off the front thread, in the ingest pool (src/ingest/worker.ts),
// which writes them as an update file the scheduler will later read.
import { Tinypool } from 'tinypool';
import { fromBody } from '../../errors/index.js';
import type { DecodePayloadInput, DecodePayloadResult } from '../../ingest/payload-types.js';

export interface DecodedPayload {
  updateFile: string;
  documentCount: number;
}

export class IngestClient {
  constructor(private readonly pool: Tinypool) {
    pool.on('error', (error: Error) => process.emitWarning(`ingest worker failed: ${error.message}`));
  }

  static create(filename: string, maxThreads: number): IngestClient {
    // One thread is kept (warmed up at start, front/threads/warm-up.ts warmUpIngest): a thread ended after
    // 30 s idle made the next bulk load start a thread and decode with cold code again.
    return new IngestClient(new Tinypool({ filename, minThreads: 1, maxThreads, idleTimeout: 30_000 }));
  }

  /** Payloads sent to the pool so far (the warm-up gives way once a real one came: front/threads/warm-up.ts). */
  started = 0;

  /** Throws the payload's SkeinError (malformed_payload, missing_payload, payload_too_large...). */
  async decode(input: DecodePayloadInput): Promise<DecodedPayload> {
    this.started++;
    const result = (await this.pool.run(input, { transferList: [input.bytes] })) as DecodePayloadResult;
    if ('error' in result) throw fromBody(result.error);
    return result;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}

/** An ArrayBuffer holding exactly these bytes, safe to transfer (never a slice of a shared pool). */
export function ownArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) {
    return bytes.buffer;
  }
  const copy = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(copy).set(bytes);
  return copy;
}
