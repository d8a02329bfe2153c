// Internal document ids. A document's shard is fixed by a hash of its external id; its internal
// id is seq * shardCount + shard, so ids ascend in insertion order (placeholder search order) and
// the owning shard is readable from the id alone (docId % shardCount) without a lookup.

/** FNV-1a over the UTF-16 code units: cheap, stable across runs and platforms. */
export function shardOf(externalId: string, shardCount: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < externalId.length; i++) {
    hash ^= externalId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shardCount;
}

export function composeDocId(seq: number, shard: number, shardCount: number): number {
  return seq * shardCount + shard;
}

export function shardOfDocId(docId: number, shardCount: number): number {
  return docId % shardCount;
}
