// The shard commands that bring the shard workers in line with an index plan, and the ones that undo
// them. Applying runs in two phases: `prepare` (loadIndex/dropIndex, to every worker) then `writes`
// (one writeBatch per shard touched, to EVERY owner of the shard: replicas must stay identical, and
// the batch commits only once all of them acknowledged).
import { shardOfDocId } from '../../documents/doc-ids.js';
import type { DocumentOpMessage } from '../../protocol/messages.js';
import { ownersOfShard } from '../../protocol/placement.js';
import { storageKeyOf, type IndexRecord } from '../../storage/records.js';
import { settingsChanged, type IndexPlan } from '../batching/batch-plan.js';
import type { ShardCommand } from './shard-link.js';
import { onlySearchTimeSettingsDiffer } from '../../settings/search-time-settings.js';

export interface AddressedCommand {
  worker: number;
  command: ShardCommand;
}

export interface ApplyPhases {
  prepare: AddressedCommand[];
  writes: AddressedCommand[];
}

// Shards are named by the index's storage key (records.ts storageKeyOf), not its uid.
export function applyCommands(plan: IndexPlan, workerCount: number): ApplyPhases {
  const { before } = plan;
  const uid = plan.stage.key;
  const after = plan.stage.record;
  if (after === null) return { prepare: before === null ? [] : toEveryWorker(workerCount, { kind: 'dropIndex', indexUid: uid }), writes: [] };
  const reload = before === null || settingsChanged(plan);
  const prepare = reload ? toEveryWorker(workerCount, loadIndex(after, before !== null && keepsShards(before, after))) : [];
  return { prepare, writes: writeBatches(plan, after, workerCount, before !== null) };
}

/** Commands returning the shards to the committed state (LMDB still holds it when this runs). */
export function rollbackCommands(plan: IndexPlan, workerCount: number): AddressedCommand[] {
  const { before } = plan;
  const uid = plan.stage.key;
  const after = plan.stage.record;
  if (before === null) return after === null ? [] : toEveryWorker(workerCount, { kind: 'dropIndex', indexUid: uid });
  if (after === null || settingsChanged(plan)) return toEveryWorker(workerCount, loadIndex(before, after !== null && keepsShards(after, before)));
  const touched = new Map<number, number[]>();
  for (const docId of plan.stage.documents.keys()) {
    const shard = shardOfDocId(docId, before.shardCount);
    let docIds = touched.get(shard);
    if (!docIds) touched.set(shard, (docIds = []));
    docIds.push(docId);
  }
  return [...touched].flatMap(([shard, docIds]) =>
    toEveryOwner(shard, before.shardCount, workerCount, { kind: 'reloadDocuments', indexUid: uid, shard, docIds }));
}

function writeBatches(plan: IndexPlan, after: IndexRecord, workerCount: number, indexExisted: boolean): AddressedCommand[] {
  const opsByShard = new Map<number, DocumentOpMessage[]>();
  for (const [docId, document] of plan.stage.documents) {
    // A document created and deleted within the batch never reached a shard.
    if (document === null && (!indexExisted || !plan.stage.existedBefore(docId))) continue;
    const shard = shardOfDocId(docId, after.shardCount);
    let ops = opsByShard.get(shard);
    if (!ops) opsByShard.set(shard, (ops = []));
    ops.push(document === null ? { kind: 'delete', docId } : { kind: 'upsert', docId, document });
  }
  return [...opsByShard].sort(([a], [b]) => a - b).flatMap(([shard, ops]) =>
    toEveryOwner(shard, after.shardCount, workerCount, { kind: 'writeBatch', indexUid: plan.stage.key, shard, ops }));
}

/** keepShards: the record's settings differ from the workers' in search-time settings only (no rebuild). */
function loadIndex(record: IndexRecord, keepShards: boolean): ShardCommand {
  return { kind: 'loadIndex', indexUid: storageKeyOf(record), shardCount: record.shardCount, settings: record.settings, keepShards };
}

/** The workers hold `from`'s shards and go to `to`: the same shards and documents, search-time settings aside. */
function keepsShards(from: IndexRecord, to: IndexRecord): boolean {
  return from.shardCount === to.shardCount && storageKeyOf(from) === storageKeyOf(to) && onlySearchTimeSettingsDiffer(from.settings, to.settings);
}

function toEveryWorker(workerCount: number, command: ShardCommand): AddressedCommand[] {
  return Array.from({ length: workerCount }, (_, worker) => ({ worker, command }));
}

function toEveryOwner(shard: number, shardCount: number, workerCount: number, command: ShardCommand): AddressedCommand[] {
  return ownersOfShard(shard, shardCount, workerCount).map((worker) => ({ worker, command }));
}
