// Named crash points of the scheduler's state machine, for crash-recovery tests: when the scheduler
// was started with a point's name in workerData.failurePoints, reaching it kills the whole process
// with SIGKILL (a real kill -9: no cleanup, no pending write flushed). The same names, armed through
// startServer's testHooks, end only the scheduler thread, which the front replaces
// (src/protocol/thread-failure-points.ts).

export const FAILURE_POINTS = [
  /** After `enqueued -> processing` is committed, before any shard is touched. */
  'afterMarkingProcessing',
  /** After the next batch's writes were sent ahead (plan-ahead.ts), before this batch's acknowledgement and commit. */
  'afterSentAhead',
  /** After every shard acked the batch's commands, before the LMDB commit. */
  'afterShardsApplied',
  /** Just before the commit transaction starts. */
  'beforeCommit',
  /** Inside the commit transaction, after the index's writes: nothing of the batch is durable yet. */
  'duringCommit',
  /** After the commit transaction returned, before indexesChanged and update-file deletion. */
  'afterCommit',
  /** After a new task is persisted, before its taskEnqueued answer is posted. */
  'afterEnqueuePersisted',
  /** A snapshotCreation batch: its archive written and fsynced under the temporary name, not renamed yet. */
  'beforeSnapshotRename',
  /** A dump's archive is written under its temporary name, before it is renamed `<dumpUid>.dump` (src/dump/writer.ts). */
  'beforeDumpRename',
] as const;

export type FailurePoint = (typeof FAILURE_POINTS)[number];

export type FailurePointHandler = (point: FailurePoint) => void;

/** A handler that kills the process at the armed points and does nothing at the others. */
export function failurePointHandler(armed: readonly string[]): FailurePointHandler {
  const points = new Set(armed);
  return (point) => {
    if (points.has(point)) process.kill(process.pid, 'SIGKILL');
  };
}

export const noFailurePoints: FailurePointHandler = () => {};
