// Where a full build's pass over a shard's documents reads their tokens (the near-pair tables, the
// rank / position lists): the shard's own forward index, between searches and writes (the arena may
// grow and documents move between two steps), or a copy of its arena taken when the build started,
// in the build helper thread (src/build-helper/), where nothing changes under the pass.
import { PassOffsets, type ForwardIndex } from './forward-index.js';

export interface ArenaPassSource {
  /** The arena, asked again for each document (a write between steps may grow it). */
  arena(): Uint32Array;
  /** documents[index]'s offset in the arena, -1 when it is no longer held. */
  offsetAt(index: number): number;
  /** After each of the pass's yields (a write meanwhile may have moved documents). */
  resume(): void;
  /** Before each pass over the documents but the first. */
  rewind(): void;
  /** The document was written since the build started: left out, so that the build's passes all see the same documents. */
  skips(docId: number): boolean;
}

/** The shard's forward index, read between steps; `skips`: the documents written since the build started (none: every one is read). */
export function forwardIndexSource(forward: ForwardIndex, documents: Uint32Array, skips: (docId: number) => boolean = () => false): ArenaPassSource {
  let offsets = new PassOffsets(forward, documents);
  return {
    arena: () => forward.arena,
    offsetAt: (index) => offsets.at(index),
    resume: () => offsets.resume(),
    // The offsets as the documents stand now (read in order again, when writes since the last pass moved some).
    rewind: () => {
      offsets = new PassOffsets(forward, documents);
    },
    skips,
  };
}

/** A copy of the arena and the documents' offsets in it, taken when the build started (the build helper thread). */
export function arenaCopySource(arena: Uint32Array, offsets: Int32Array): ArenaPassSource {
  return {
    arena: () => arena,
    offsetAt: (index) => offsets[index]!,
    resume: () => {},
    rewind: () => {},
    skips: () => false,
  };
}
