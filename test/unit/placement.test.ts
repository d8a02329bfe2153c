import test from 'ava';
import { ownersOfShard, primaryOwnerOfShard, shardsOwnedBy } from '../../src/protocol/placement.js';

test('with at least as many shards as workers, each shard has one owner', (t) => {
  t.deepEqual(ownersOfShard(0, 2, 2), [0]);
  t.deepEqual(ownersOfShard(1, 2, 2), [1]);
  t.deepEqual(ownersOfShard(4, 5, 2), [0]);
  t.deepEqual(ownersOfShard(0, 1, 1), [0]);
});

test('with fewer shards than workers, every worker holds a replica of one shard', (t) => {
  t.deepEqual(ownersOfShard(0, 1, 2), [0, 1]);
  t.deepEqual(ownersOfShard(0, 1, 3), [0, 1, 2]);
  t.deepEqual(ownersOfShard(0, 2, 5), [0, 2, 4]);
  t.deepEqual(ownersOfShard(1, 2, 5), [1, 3]);
  t.deepEqual(shardsOwnedBy(0, 1, 2), [0]);
  t.deepEqual(shardsOwnedBy(1, 1, 2), [0]);
  t.deepEqual(shardsOwnedBy(3, 2, 5), [1]);
  t.deepEqual(shardsOwnedBy(4, 2, 5), [0]);
});

test('a shard count of 0 (an index created before its first load) counts as one shard', (t) => {
  t.deepEqual(ownersOfShard(0, 0, 2), [0, 1]);
  t.deepEqual(shardsOwnedBy(1, 0, 2), [0]);
});

test('owners and owned shards agree, every shard is held, the primary is the lowest owner', (t) => {
  for (let workers = 1; workers <= 6; workers++) {
    for (let shards = 1; shards <= 9; shards++) {
      const held = new Set<number>();
      for (let worker = 0; worker < workers; worker++) {
        const owned = shardsOwnedBy(worker, shards, workers);
        t.true(owned.length > 0, `worker ${worker} of ${workers} idles with ${shards} shards`);
        for (const shard of owned) {
          held.add(shard);
          t.true(ownersOfShard(shard, shards, workers).includes(worker), `${worker} owns ${shard}/${shards} of ${workers}`);
        }
      }
      t.is(held.size, shards);
      for (let shard = 0; shard < shards; shard++) {
        const owners = ownersOfShard(shard, shards, workers);
        t.is(owners[0], primaryOwnerOfShard(shard, workers));
        t.deepEqual([...owners].sort((a, b) => a - b), owners);
        for (const owner of owners) t.true(shardsOwnedBy(owner, shards, workers).includes(shard));
        // Replicas only when shards are fewer than workers; then every worker holds exactly one.
        if (shards >= workers) t.is(owners.length, 1);
      }
      if (shards < workers) for (let worker = 0; worker < workers; worker++) t.is(shardsOwnedBy(worker, shards, workers).length, 1);
    }
  }
});
