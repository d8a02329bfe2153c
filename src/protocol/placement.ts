// Which shard worker owns which shard. Every thread computes placement with this one function,
// so the front's query fan-out and the scheduler's write fan-out always agree.

export function ownerOfShard(shard: number, workerCount: number): number {
  return shard % workerCount;
}

export function shardsOwnedBy(worker: number, shardCount: number, workerCount: number): number[] {
  const shards: number[] = [];
  for (let shard = 0; shard < shardCount; shard++) if (ownerOfShard(shard, workerCount) === worker) shards.push(shard);
  return shards;
}
