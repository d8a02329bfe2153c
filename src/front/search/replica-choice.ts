// Which replica of a shard answers a query (src/protocol/placement.ts: with fewer shards than workers,
// every owner holds the whole shard). Each replica keeps its own caches of query-word expansions
// (lexicon walks, derivations), so the same query text goes to the same replica while that replica
// is not clearly busier than another: its words are then expanded once, not once per replica.

/** How many more queries (queued + in flight) the query's own replica may have than the least busy one. */
export const AFFINITY_SLACK = 8;

/**
 * FNV-1a of the query text, finished with murmur3's fmix32 (FNV's low bits alone depend only on the
 * parity of the characters, and `% owners` reads the low bits): the same text always prefers the same replica.
 */
export function queryAffinity(q: string): number {
  let hash = 0x811c9dc5;
  for (let k = 0; k < q.length; k++) hash = Math.imul(hash ^ q.charCodeAt(k), 0x01000193);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** The owner to search: the query's own replica, or the least busy one when that is over AFFINITY_SLACK less busy. */
export function chooseReplica(owners: readonly number[], loadOf: (worker: number) => number, affinity: number): number {
  const preferred = owners[affinity % owners.length]!;
  const preferredLoad = loadOf(preferred);
  let best = preferred;
  let bestLoad = preferredLoad;
  for (const owner of owners) {
    const load = loadOf(owner);
    if (load < bestLoad) {
      best = owner;
      bestLoad = load;
    }
  }
  return preferredLoad - bestLoad > AFFINITY_SLACK ? best : preferred;
}
