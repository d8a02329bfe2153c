// One task log message (src/cluster): a task's content as the accepting node validated it, its
// enqueuedAt, and for document additions the decoded NDJSON update file, inline when it fits in a
// NATS message, else a reference to the payload store (JetStream's Object Store). Pure.
//   [u32 big-endian length of the JSON header][JSON header][payload bytes when inline]
import type { TaskContent } from '../tasks/task-record.js';

export interface TaskEnvelope {
  v: 1;
  /** For documentAdditionOrUpdate, `updateFile` is left out: each node writes its own. */
  content: TaskContent;
  enqueuedAt: string;
  /** The accepting node's name. */
  node: string;
  /** none: no payload; inline: the bytes after the header; object: this name in the payload store. */
  payload: 'none' | 'inline' | 'object';
  object?: string;
  /** Bytes of the payload (both forms), checked after a read. */
  payloadBytes?: number;
}

export function encodeEnvelope(envelope: TaskEnvelope, inline: Uint8Array | null): Uint8Array {
  const header = Buffer.from(JSON.stringify(envelope), 'utf8');
  const frame = Buffer.allocUnsafe(4 + header.length + (inline?.length ?? 0));
  frame.writeUInt32BE(header.length, 0);
  header.copy(frame, 4);
  if (inline) frame.set(inline, 4 + header.length);
  return frame;
}

export function decodeEnvelope(frame: Uint8Array): { envelope: TaskEnvelope; inline: Uint8Array | null } {
  const bytes = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
  if (bytes.length < 4) throw new Error('task log message too short');
  const headerLength = bytes.readUInt32BE(0);
  if (4 + headerLength > bytes.length) throw new Error('task log message header cut');
  const envelope = JSON.parse(bytes.toString('utf8', 4, 4 + headerLength)) as TaskEnvelope;
  if (envelope.v !== 1) throw new Error(`task log message version ${String(envelope.v)} unknown`);
  return { envelope, inline: envelope.payload === 'inline' ? bytes.subarray(4 + headerLength) : null };
}
