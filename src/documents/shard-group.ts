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

/** Which remotes hold each shard group (/network's `shards`, names only): one side of a topology change. */
export type Placement = Record<string, string[]>;

/** The group of `placement` listing `self` (the first by name); null: none, or no self. */
export function ownGroupIn(placement: Placement, self: string | null): string | null {
  if (self === null) return null;
  for (const name of Object.keys(placement).sort()) if (placement[name]!.includes(self)) return name;
  return null;
}

/**
 * Whether a node whose group is `own` keeps the document under a placement of these group names: a
 * node in no group (or a network without groups) keeps every document, as the log's additions do.
 */
export function keepsDocument(externalId: string, names: readonly string[], own: string | null): boolean {
  return own === null || names.length === 0 || rendezvousGroup(externalId, names) === own;
}

export function samePlacement(a: Placement, b: Placement): boolean {
  const names = Object.keys(a).sort();
  if (JSON.stringify(names) !== JSON.stringify(Object.keys(b).sort())) return false;
  return names.every((name) => JSON.stringify([...a[name]!].sort()) === JSON.stringify([...b[name]!].sort()));
}

/**
 * The groups of `previous` a node must fetch documents from when the placement becomes `next`
 * (issue 23's rebalancing): every group but its own, when it held one group's share; none when it
 * held everything (no group, or no groups at all) or keeps nothing new (no group in `next`).
 */
export function sourceGroups(previous: Placement, next: Placement, self: string | null): string[] {
  const before = ownGroupIn(previous, self);
  if (before === null || ownGroupIn(next, self) === null) return [];
  return Object.keys(previous).sort().filter((name) => name !== before);
}
