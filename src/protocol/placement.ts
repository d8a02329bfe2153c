// Which shard workers hold which shard. Every thread computes placement with these functions, so
// the front's query fan-out, the scheduler's write fan-out and the workers' loads always agree.
//
// With at least as many shards as workers, shard s lives in worker s % workers alone. With fewer
// shards than workers, each shard is REPLICATED: shard s is held by every worker w with
// w % shardCount === s, so every worker holds one shard and no core idles on a small index. Writes
// go to every owner; a query goes to one owner per shard (src/front/search/replica-choice.ts). The
// primary owner (the lowest, always s % workers) does the once-per-shard work: snapshot files.

/** Every worker holding the shard, ascending (the first is the primary). */
export function ownersOfShard(shard: number, shardCount: number, workerCount: number): number[] {
  const shards = Math.max(1, shardCount);
  if (shards >= workerCount) return [shard % workerCount];
  const owners: number[] = [];
  for (let worker = shard; worker < workerCount; worker += shards) owners.push(worker);
  return owners;
}

/** The one owner that does a shard's once-per-shard work (writing and removing its snapshot file). */
export function primaryOwnerOfShard(shard: number, workerCount: number): number {
  return shard % workerCount;
}

/** The shards the worker holds, replicas included, ascending. */
export function shardsOwnedBy(worker: number, shardCount: number, workerCount: number): number[] {
  const shards = Math.max(1, shardCount);
  if (shards < workerCount) return worker < workerCount ? [worker % shards] : [];
  const owned: number[] = [];
  for (let shard = worker; shard < shards; shard += workerCount) owned.push(shard);
  return owned;
}
