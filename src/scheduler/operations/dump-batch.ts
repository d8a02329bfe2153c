// A dumpCreation is a batch of its own (as Meilisearch's autobatcher makes it): nothing else commits
// while the dump is written, and it reads one LMDB read transaction (src/dump/writer.ts). The dump is
// written while the batch is planned; the commit only records the task's result. A crash meanwhile
// leaves the task `processing`, so recovery enqueues it again and the dump is redone.
import { SkeinError } from '../../errors/index.js';
import type { Storage } from '../../storage/environment.js';
import { succeededDetails } from '../../tasks/task-details.js';
import type { TaskRecord } from '../../tasks/task-record.js';
import { emptyPlan, type BatchPlan } from '../batching/batch-plan.js';
import type { FailurePointHandler } from '../failure-points.js';

export interface DumpContext {
  storage: Storage;
  dumpDir: string;
  now: () => string;
  failurePoint?: FailurePointHandler;
}

export async function planDump(task: TaskRecord, context: DumpContext): Promise<BatchPlan> {
  let dumpUid: string;
  try {
    // Loaded here only (roaring and the dump formats stay off the scheduler thread's start).
    const { writeDump } = await import('../../dump/writer.js');
    dumpUid = await writeDump({
      storage: context.storage, dumpDir: context.dumpDir, task, now: context.now,
      beforeRename: () => context.failurePoint?.('beforeDumpRename'),
    });
  } catch (cause) {
    if (cause instanceof SkeinError) throw cause;
    throw new SkeinError('dump_process_failed', `An error occurred during dump creation: ${(cause as Error).message}`);
  }
  const plan = emptyPlan();
  plan.results.set(task.uid, { status: 'succeeded', details: succeededDetails(task.details, { dumpUid }), error: null });
  return plan;
}
