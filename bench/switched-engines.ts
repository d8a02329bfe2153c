// The in-process A/Bs' engines (interleaved-ab.ts, mixed-ab.ts, mixed-engine.ts): one ShardEngine holding
// the npm workload's documents in one shard, built for search, with ShardIndex switches (boolean fields) set.
import { ShardEngine, type JsonDocument } from '../src/shard/shard-engine.js';
import type { createNpmDataset } from './npm-dataset.js';

type Settings = Parameters<ShardEngine['loadIndex']>[2];

/** An engine with the dataset's documents in index 'npm', shard 0, its structures built. */
export function loadedEngine(dataset: ReturnType<typeof createNpmDataset>, settings: Settings): ShardEngine {
  const engine = new ShardEngine(0, 1);
  engine.loadIndex('npm', 1, settings, (function* documents(): Generator<[number, JsonDocument]> {
    for (let seq = 0; seq < dataset.spec.documents; seq++) yield [seq, dataset.documentAt(seq) as JsonDocument];
  })());
  engine.prepareForSearch();
  return engine;
}

/** Sets ShardIndex[field] on the engine's shard; throws when it is not a boolean switch. */
export function setSwitch(engine: ShardEngine, field: string, on: boolean): void {
  const shard = engine.loadedIndex('npm')!.shards.get(0)! as unknown as Record<string, unknown>;
  if (typeof shard[field] !== 'boolean') throw new Error(`ShardIndex.${field} is not a boolean switch`);
  shard[field] = on;
}
