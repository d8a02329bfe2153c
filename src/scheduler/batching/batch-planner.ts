// Computes the BatchPlan of a selected batch: runs each task against a fork of the staged index (a
// failing task leaves no trace), the cancelation's and deletions' effects on other tasks. Reads LMDB
// and update files; writes nothing.
import { asSkeinError } from '../../errors/index.js';
import type { Storage } from '../../storage/environment.js';
import { FINISHED_STATUSES, type TaskRecord } from '../../tasks/task-record.js';
import { failedDetails, succeededDetails, type TaskDetails } from '../../tasks/task-details.js';
import type { Batch } from './batch-selection.js';
import { BatchAborted, emptyPlan, type BatchPlan } from './batch-plan.js';
import { placedAddition } from '../operations/network-move.js';
import { geoChecksOf } from '../../documents/geo-field.js';
import { applyClear, applyDocumentDeletion, applyUpdateFile, checkGeoOfDocuments, type Slicing } from '../operations/document-operations.js';
import { applyIndexCreation, applyIndexDeletion, applyIndexUpdate, ensureIndex, indexNotFound } from '../operations/index-operations.js';
import { planSwapOrRename } from '../operations/index-swap.js';
import { mergeSettings } from '../operations/settings-merge.js';
import { StagedIndex } from './staged-index.js';
import type { StoredIdFilter } from './stored-id-filter.js';
import { applyDocumentDeletionByFilter } from '../operations/delete-by-filter.js';
import { applyDocumentEdition } from '../operations/document-edition.js';
import { planDump, type DumpContext } from '../operations/dump-batch.js';
import { nowRfc3339 } from '../../tasks/timestamps.js';

export interface PlanningContext {
  storage: Storage;
  shardsPerIndex: number;
  /** The batch's start time, used for createdAt/updatedAt. */
  now: string;
  /** Is this task still enqueued (a cancelation cancels only those)? */
  isEnqueued(uid: number): boolean;
  /**
   * Plan over this stage (the batch before, applied but not yet committed) instead of the last commit:
   * planning ahead (plan-ahead.ts). The plan is valid only once that batch committed.
   */
  base?: StagedIndex;
  /** Proves ids new without an LMDB read (stored-id-filter.ts); absent: every id not staged is read. */
  storedIds?: StoredIdFilter;
  /** How long document additions are planned between two pauses (PLANNING_SLICES unless given). */
  slicing?: Slicing;
  /** Throws when the batch was canceled meanwhile (checked between slices of a long documentEdition). */
  checkAbort?: () => void;
  /** Where dumpCreation writes (dump-batch.ts); its failure point. */
  dump?: Omit<DumpContext, 'storage'>;
}

export async function planBatch(batch: Batch, context: PlanningContext): Promise<BatchPlan> {
  switch (batch.kind) {
    case 'taskCancelation': return planCancelation(batch.tasks[0], context);
    case 'taskDeletion': return planDeletions(batch.tasks, context);
    case 'index': return planIndexBatch(batch.indexUid, batch.tasks, context);
    case 'indexSwap': return planSwapOrRename(batch.tasks[0], context.storage, context.now);
    case 'snapshotCreation': throw new Error('a snapshotCreation batch is processed by snapshot-task.ts, not planned');
    case 'dumpCreation': return planDump(batch.tasks[0], { storage: context.storage, dumpDir: 'dumps/', now: nowRfc3339, ...context.dump });
    case 'networkTopologyChange': {
      const plan = emptyPlan();
      plan.results.set(batch.tasks[0].uid, { status: 'succeeded', details: batch.tasks[0].details, error: null });
      return plan;
    }
  }
}

function planCancelation(task: TaskRecord, context: PlanningContext): BatchPlan {
  const plan = emptyPlan();
  const matched = task.content.type === 'taskCancelation' ? task.content.matchedUids : [];
  plan.canceledUids = matched.filter((uid) => uid !== task.uid && context.isEnqueued(uid));
  plan.canceledBy = task.uid;
  plan.results.set(task.uid, { status: 'succeeded', details: succeededDetails(task.details, { canceledTasks: plan.canceledUids.length }), error: null });
  return plan;
}

function planDeletions(tasks: TaskRecord[], context: PlanningContext): BatchPlan {
  const plan = emptyPlan();
  const deleted = new Set<number>();
  for (const task of tasks) {
    const matched = task.content.type === 'taskDeletion' ? task.content.matchedUids : [];
    let count = 0;
    for (const uid of matched) {
      if (deleted.has(uid)) continue;
      const record = context.storage.tasks.get(uid);
      if (!record || !FINISHED_STATUSES.has(record.status)) continue;
      deleted.add(uid);
      count++;
    }
    plan.results.set(task.uid, { status: 'succeeded', details: succeededDetails(task.details, { deletedTasks: count }), error: null });
  }
  plan.deletedUids = [...deleted];
  return plan;
}

/** Lets the scheduler thread answer enqueue requests between two tasks of a long batch. */
function yieldToMessages(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A slice is parsed and applied in one go (applyUpdateFile): 2,500 documents, about the time the
 * former parse-only and apply-only slices of 5,000 took each (~50 ms under load), which is how long
 * an enqueue waits at most for its 202.
 */
const PLANNING_SLICES: Slicing = { sliceSize: 2_500, pause: yieldToMessages };

async function planIndexBatch(indexUid: string, tasks: TaskRecord[], context: PlanningContext): Promise<BatchPlan> {
  const plan = emptyPlan();
  const stage = context.base ? context.base.fork() : StagedIndex.fromStorage(context.storage, indexUid, context.storedIds ?? null);
  plan.index = { uid: indexUid, before: context.base ? context.base.record : context.storage.indexes.get(indexUid) ?? null, stage };
  let changed = false;
  for (const [position, task] of tasks.entries()) {
    // Planning reads update files and parses every document: each enqueue waiting meanwhile is a
    // client waiting for its 202. The batch's tasks are already out of the queue, so nothing enqueued
    // now can change this plan.
    if (position > 0) await yieldToMessages();
    // Additions and settings updates create a missing index even when the task itself then fails.
    if (task.type === 'documentAdditionOrUpdate' || task.type === 'settingsUpdate') {
      if (stage.record === null && (task.content as { allowIndexCreation?: boolean }).allowIndexCreation === false) {
        // The requesting key could not create indexes (auth.md §6).
        plan.results.set(task.uid, { status: 'failed', details: failedDetails(task.details), error: indexNotFound(indexUid).toBody() });
        continue;
      }
      if (stage.record === null) changed = true;
      ensureIndex(stage, context.shardsPerIndex, context.now);
    }
    const fork = stage.fork();
    try {
      const counts = await applyTask(fork, task, context);
      stage.absorb(fork);
      changed = true;
      plan.results.set(task.uid, { status: 'succeeded', details: succeededDetails(task.details, counts), error: null });
    } catch (cause) {
      if (cause instanceof BatchAborted) throw cause;
      plan.results.set(task.uid, { status: 'failed', details: failedDetails(task.details), error: asSkeinError(cause).toBody() });
    }
  }
  if (changed && stage.record !== null) stage.record.updatedAt = context.now;
  return plan;
}

/** Applies one task to its fork; returns the counts its details report. */
async function applyTask(stage: StagedIndex, task: TaskRecord, context: PlanningContext): Promise<TaskDetails> {
  const content = task.content;
  switch (content.type) {
    case 'documentAdditionOrUpdate':
      return { indexedDocuments: await applyUpdateFile(stage, placedAddition(context.storage, content) as typeof content, context.storage.updateFilesDir, context.slicing ?? PLANNING_SLICES) };
    case 'documentDeletion':
      if ('byFilter' in content) return { deletedDocuments: applyDocumentDeletionByFilter(stage, placedAddition(context.storage, content) as typeof content) };
      return { deletedDocuments: 'clear' in content ? applyClear(stage) : applyDocumentDeletion(stage, content.ids) };
    case 'documentEdition':
      return applyDocumentEdition(stage, content, { checkAbort: context.checkAbort });
    case 'settingsUpdate': {
      const before = stage.record!.settings;
      stage.record!.settings = mergeSettings(before, content.settings, content.isDeletion);
      // Enabling geo (geojson) reads every document's `_geo` (`_geojson`): milli's settings extractors; an invalid one fails the task.
      const was = geoChecksOf(before);
      const now = geoChecksOf(stage.record!.settings);
      const checks = { geo: now.geo && !was.geo, geojson: now.geojson && !was.geojson };
      if (checks.geo || checks.geojson) checkGeoOfDocuments(stage, checks);
      return {};
    }
    case 'indexCreation':
      applyIndexCreation(stage, content.primaryKey, context.shardsPerIndex, context.now);
      return {};
    case 'indexUpdate':
      applyIndexUpdate(stage, content.primaryKey);
      return {};
    case 'indexDeletion':
      return { deletedDocuments: applyIndexDeletion(stage) };
    default:
      throw new Error(`task type ${task.type} cannot run in an index batch`);
  }
}
