// The build helper thread (a Tinypool task, dist/src/build-helper/worker.js), started by a shard
// worker's BuildHelperClient (src/shard/build-helper-client.ts) for a large full build: the passes
// over the documents the shard worker would run in steps (near-pair tables: shard/pairs/near-pair-pass.ts;
// rank / position lists: shard/postings/token-key-pass.ts), at once, over the arena copy it was given,
// on the core the worker is not on. It reads no LMDB and keeps nothing between tasks; the arrays go
// back transferred, not copied.
import { markMovable, Tinypool } from 'tinypool';
import type { ArenaBuildRequest, ArenaBuildResult } from '../protocol/build-helper.js';
import { arenaCopySource } from '../shard/documents/arena-pass.js';
import { nearPairTablesSteps } from '../shard/pairs/near-pair-pass.js';
import { TOKEN_KEYS, tokenKeyPassSteps } from '../shard/postings/token-key-pass.js';
import { finishSteps } from '../shard/sliced-jobs.js';

export default function buildOverArena(request: ArenaBuildRequest): unknown {
  const { arena, documents, offsets } = request;
  const source = arenaCopySource(arena, offsets);
  const result: ArenaBuildResult = {
    nearPairTables: request.nearPairs === null ? null
      : finishSteps(nearPairTablesSteps(request.nearPairs, documents, source, true)),
    tokenKeys: request.tokenKeys.map((spec) => finishSteps(tokenKeyPassSteps(documents, source, spec.wordCount, TOKEN_KEYS[spec.key], spec.limit))),
  };
  const buffers = new Set<ArrayBufferLike>();
  for (const { keys, starts, docIds, tags } of result.nearPairTables ?? []) for (const array of [keys, starts, docIds, tags]) if (array !== null) buffers.add(array.buffer);
  for (const { starts, ends, pairs } of result.tokenKeys) for (const array of [starts, ends, pairs]) buffers.add(array.buffer);
  const moved = { [Tinypool.transferableSymbol]: [...buffers], [Tinypool.valueSymbol]: result };
  markMovable(moved);
  return moved;
}
