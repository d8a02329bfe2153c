// Planning ahead: while the shard workers index batch N, the scheduler thread would wait idle, and
// while it plans batch N+1 (read update files, parse, assign ids) the shards would. So once N's writes
// are sent, the next document batch of the same index is planned over N's stage (as if N committed).
// Nothing is written: N+1's tasks stay enqueued and the plan is only a cache, used when the next
// batch selected starts with the same tasks right after N committed, discarded otherwise (N failed or
// was aborted, a cancelation came first, any other batch ran in between). A crash while planning
// ahead is a crash while N is applied: N's tasks are redone, N+1's were never started.
//
// Sending ahead: once planned, N+1's write batches are sent at once (a plan needing no LoadIndex),
// so the workers index N+1 while this thread awaits N's acknowledgement and commits N. N+1's tasks
// stay enqueued meanwhile; LMDB goes through the same states as without it, so a crash is again a
// crash while N is applied. The shards then hold N+1's uncommitted writes, hence:
//   - N's commit stamp is not announced (a worker would stamp N+1's writes): the stamp goes out
//     after the last batch sent commits, or after the writes sent ahead are rolled back;
//   - N fails or is aborted: N+1's documents are reloaded from LMDB too (before N's rollback);
//   - the next batch is not N+1 (a cancelation came first...), or the scheduler pauses: they are
//     reloaded from LMDB (holding N) before anything else is sent.
import type { TaskContent, TaskRecord } from '../../tasks/task-record.js';
import type { BatchPlan, IndexPlan } from './batch-plan.js';
import type { Batch } from './batch-selection.js';

export interface PlanAhead {
  /** The tasks the plan was computed for, in order. */
  tasks: TaskRecord[];
  plan: BatchPlan;
  /** The `now` planning used (the index's updatedAt), replaced by the batch's real start when taken. */
  plannedAt: string;
  /**
   * Its write batches were sent ahead, before the batch before committed (so the shard workers go on
   * indexing while this thread commits): the shards' acknowledgement. null: not sent.
   */
  sent: Promise<void> | null;
}

/** Only document additions and deletions by ids of an index that exists after `current` are planned ahead. */
export function canPlanAhead(next: Batch, current: IndexPlan): next is Extract<Batch, { kind: 'index' }> {
  return next.kind === 'index' && next.indexUid === current.uid && current.stage.record !== null
    && next.tasks.every((task) => isPlainDocumentWrite(task.content));
}

function isPlainDocumentWrite(content: TaskContent): boolean {
  return content.type === 'documentAdditionOrUpdate' || (content.type === 'documentDeletion' && 'ids' in content);
}

/**
 * The tasks of `selected` the plan ahead covers when it starts with them (a batch may hold fewer
 * tasks than the autobatcher would take: the rest stay enqueued for the next one); null otherwise.
 */
export function coveredTasks(ahead: PlanAhead, selected: Batch): TaskRecord[] | null {
  if (selected.kind !== 'index' || selected.tasks.length < ahead.tasks.length) return null;
  for (let i = 0; i < ahead.tasks.length; i++) if (selected.tasks[i]!.uid !== ahead.tasks[i]!.uid) return null;
  return selected.tasks.slice(0, ahead.tasks.length);
}

/** The plan, as if computed when the batch started: the index's updatedAt is the batch's start. */
export function takePlan(ahead: PlanAhead, startedAt: string): BatchPlan {
  const record = ahead.plan.index?.stage.record;
  if (record && record.updatedAt === ahead.plannedAt) record.updatedAt = startedAt;
  // The batch before committed: its documents are read from LMDB from now on.
  ahead.plan.index?.stage.detachFromCommittedParent();
  return ahead.plan;
}
