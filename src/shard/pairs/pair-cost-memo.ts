// What searches learn of a pair's proximity costs past the pair tables (which stop at 2), kept in the
// pair's shared PairLookupMemo (shared-pair-memos.ts) for later searches of the same two terms:
// the costs from KNOWN_COST_MIN on that proximity found reading documents (proximity.ts notes them).
// proximity's rest classes (src/ranking/rules/proximity-rest-classes.ts) bound documents by them without
// reading: the class of every pair at "at least 3", read whole when the lead score equals its bound,
// loses the documents known to cost more. A memo lives no longer than its documents (its terms'
// derivations are dropped when a write touches their words), so what it knows stays true.
import type { KnownPairCosts } from '../../ranking/search-context.js';
import { KNOWN_COST_MIN } from '../../ranking/rules/proximity.js';

/** A note packs a document and its cost: docId * COST_NOTE_UNIT + cost - KNOWN_COST_MIN. */
export const COST_NOTE_UNIT = 8;

export function costNote(docId: number, cost: number): number {
  return docId * COST_NOTE_UNIT + cost - KNOWN_COST_MIN;
}

/**
 * `known` with the noted costs added (notes in any order, a document possibly noted more than once:
 * its cost is the same each time); `known` itself when the notes hold nothing new.
 */
export function withNotedCosts(known: KnownPairCosts | undefined, notes: readonly number[]): KnownPairCosts {
  // Most notes of a repeated search are of documents known already (its ties are read again): no copy then.
  if (known !== undefined && notes.every((note) => knows(known.docIds, Math.floor(note / COST_NOTE_UNIT)))) return known;
  const sorted = Float64Array.from(notes).sort();
  const knownIds = known?.docIds ?? new Uint32Array(0);
  const knownCosts = known?.costs ?? new Uint8Array(0);
  // At most every note is new.
  const docIds = new Uint32Array(knownIds.length + sorted.length);
  const costs = new Uint8Array(docIds.length);
  let count = 0;
  let added = 0;
  let at = 0;
  let previous = -1;
  for (let n = 0; n < sorted.length; n++) {
    const docId = Math.floor(sorted[n]! / COST_NOTE_UNIT);
    if (docId === previous) continue;
    previous = docId;
    while (at < knownIds.length && knownIds[at]! < docId) {
      docIds[count] = knownIds[at]!;
      costs[count++] = knownCosts[at++]!;
    }
    if (at < knownIds.length && knownIds[at] === docId) continue;
    docIds[count] = docId;
    costs[count++] = sorted[n]! - docId * COST_NOTE_UNIT + KNOWN_COST_MIN;
    added++;
  }
  if (added === 0 && known !== undefined) return known;
  while (at < knownIds.length) {
    docIds[count] = knownIds[at]!;
    costs[count++] = knownCosts[at++]!;
  }
  return { docIds: docIds.slice(0, count), costs: costs.slice(0, count) };
}

/** Whether the ascending ids hold the id (binary search). */
function knows(docIds: Uint32Array, docId: number): boolean {
  let low = 0;
  let high = docIds.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (docIds[middle]! < docId) low = middle + 1;
    else high = middle;
  }
  return low < docIds.length && docIds[low] === docId;
}

export function knownCostsBytes(known: KnownPairCosts): number {
  return known.docIds.byteLength + known.costs.byteLength;
}
