// A response body written as UTF-8 bytes, piece by piece, on the front thread. A body built as one
// string (`a + b + ...`) is a rope that the HTTP layer must flatten into a fresh heap string before
// encoding it: for a 20-hit search that is ~9 KB of young garbage per response, a third of all the
// front allocated per search (sampled at 64 connections), and young-GC pauses on the front delay
// every answer in flight. Here each piece (a hit's stored JSON is a flat string) is encoded straight
// into one reused scratch buffer, and the body is one exact-size copy whose bytes live off the heap.

/** Where a body's pieces go, in order. */
export interface BodySink {
  append(text: string): void;
}

/** The body as one string (multi-search embeds each search's body in its own). */
export class TextBody implements BodySink {
  text = '';

  append(text: string): void {
    this.text += text;
  }
}

/** UTF-8 needs at most 3 bytes per UTF-16 code unit (a surrogate pair takes 4 for its 2 units). */
const MAX_UTF8_BYTES_PER_UNIT = 3;

/** Buffer's UTF-8 writer without write()'s argument parsing (public on Buffer, missing from its types). */
interface Utf8Writable {
  utf8Write(text: string, offset: number): number;
}

/** Reused by every body of the thread: utf8Body writes one body at a time, synchronously. */
let scratch = Buffer.allocUnsafe(64 * 1024);
let written = 0;

const scratchSink: BodySink = {
  append(text: string): void {
    const needed = written + text.length * MAX_UTF8_BYTES_PER_UNIT;
    if (needed > scratch.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, scratch.length * 2));
      scratch.copy(grown, 0, 0, written);
      scratch = grown;
    }
    // A one-character piece (the comma between hits) is stored as is; utf8Write skips write()'s
    // argument checks, which cost as much as the copy for the short pieces of a body.
    if (text.length === 1 && text.charCodeAt(0) < 0x80) scratch[written++] = text.charCodeAt(0);
    else written += (scratch as unknown as Utf8Writable).utf8Write(text, written);
  },
};

/**
 * The UTF-8 bytes of what `write` appends, as a buffer the caller owns. `write` runs synchronously
 * and must not start another body: the scratch is the thread's only one.
 */
export function utf8Body(write: (sink: BodySink) => void): Buffer {
  written = 0;
  try {
    write(scratchSink);
    const body = Buffer.allocUnsafe(written);
    scratch.copy(body, 0, 0, written);
    return body;
  } finally {
    written = 0;
  }
}
