// A JSON body made of a head, a comma-separated list of already serialized items, and a tail: the
// search response (head `{"hits":[`, the hits' stored JSON, tail `],"query":...}`). Concatenated into
// one string, the ~10 KB rope was flattened by V8 and re-encoded to UTF-8 by uWS for every search
// (~40% of the front's scavenges at 64 connections: 152 against ~90 per 8 s without it). Here the
// hits are mostly UTF-8 bytes already (the stored-document cache holds them so) and are copied into
// one reused buffer; a worker-shaped hit is a string, encoded (a compressed answer is compressed from
// those bytes too). The text form (multi-search) decodes the byte items again: it pays what the single search saves.

/** A hit's JSON: UTF-8 bytes (as stored) or a string (shaped by a worker). */
export type JsonItem = string | Uint8Array;

export interface ListBody {
  head: string;
  items: readonly JsonItem[];
  tail: string;
}

function itemText(item: JsonItem): string {
  return typeof item === 'string' ? item : Buffer.from(item.buffer, item.byteOffset, item.byteLength).toString('utf8');
}

/** The body as one string (multi-search, tests). */
export function listBodyText(body: ListBody): string {
  let text = body.head;
  for (let i = 0; i < body.items.length; i++) {
    if (i > 0) text += ',';
    text += itemText(body.items[i]!);
  }
  return text + body.tail;
}

/** UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair: 4 bytes for 2 units). */
export function listBodyMaxBytes(body: ListBody): number {
  let bytes = 3 * (body.head.length + body.tail.length) + Math.max(0, body.items.length - 1);
  for (const item of body.items) bytes += typeof item === 'string' ? 3 * item.length : item.length;
  return bytes;
}

const COMMA = 0x2c;

/**
 * Writes bodies into one reused buffer. The bytes returned are valid until the next call: for a
 * consumer that copies them at once (uWS copies what res.end is given before it returns).
 */
export class ListBodyWriter {
  private scratch: Buffer;

  /** keepBytes: a larger buffer, grown for a rare huge body, is not kept for the next one. */
  constructor(initialBytes = 64 * 1024, private readonly keepBytes = 1024 * 1024) {
    this.scratch = Buffer.allocUnsafeSlow(initialBytes);
  }

  bytes(body: ListBody): Buffer {
    const needed = listBodyMaxBytes(body);
    let buffer = this.scratch;
    if (needed > buffer.length) {
      buffer = Buffer.allocUnsafeSlow(2 ** Math.ceil(Math.log2(needed)));
      if (buffer.length <= this.keepBytes) this.scratch = buffer;
    }
    let at = buffer.write(body.head, 0, 'utf8');
    for (let i = 0; i < body.items.length; i++) {
      if (i > 0) buffer[at++] = COMMA;
      const item = body.items[i]!;
      if (typeof item === 'string') {
        at += buffer.write(item, at, 'utf8');
      } else {
        buffer.set(item, at);
        at += item.length;
      }
    }
    at += buffer.write(body.tail, at, 'utf8');
    return buffer.subarray(0, at);
  }
}
