// Which shard group of a network keeps a document (issue 23, cluster sharding): rendezvous hashing
// of the external id over the group names, so adding a group moves only the documents it wins, and
// every node computes the same answer from the names alone. Pure; the scheduler uses it when it
// applies a document addition that came through the task log with the network's group names.

/** The group (one of `groups`, which must not be empty) that keeps the document `externalId`. */
export function rendezvousGroup(externalId: string, groups: readonly string[]): string {
  let best = groups[0]!;
  let bestWeight = -1;
  for (const group of groups) {
    const weight = mix(fnv1a(group, fnv1a(externalId, 0x811c9dc5) ^ 0x9e3779b9));
    // Ties (rare) go to the smaller name, so the answer does not depend on the list's order.
    if (weight > bestWeight || (weight === bestWeight && group < best)) {
      best = group;
      bestWeight = weight;
    }
  }
  return best;
}

function fnv1a(text: string, seed: number): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** murmur3's finalizer: FNV's low bits alone spread groups unevenly. */
function mix(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}
