// Cluster mode: deterministic task cancelations and deletions (main thread). A node applies a
// taskCancelation or taskDeletion entry of the task log only once every task before it in the log is
// finished on this node; its matches (fixed when it is enqueued, scheduler/task-enqueue.ts) are then
// judged against final statuses, which every node reached identically by applying the same log, so every
// node matches, cancels and deletes the same tasks with the same details. The price: in cluster mode a
// cancelation cannot stop work before it (everything before it is finished by then: it matches
// and cancels nothing enqueued), and entries after it wait on this node until it is applied (they are
// durable in the log meanwhile). README "Cluster", DECISIONS.md.
import type { Storage } from '../storage/environment.js';
import type { TaskContent, TaskRecord } from '../tasks/task-record.js';

const POLL_MS = 50;

export class FinishedBarrier {
  /** Every task below this uid is known finished here (statuses only move forward). */
  private finishedBelow = 0;

  constructor(private readonly storage: Pick<Storage, 'root' | 'tasks'>, private readonly stopped: () => boolean) {}

  /** Resolves once `content` may be applied: at once for other task types. */
  async before(content: TaskContent): Promise<void> {
    if (content.type !== 'taskCancelation' && content.type !== 'taskDeletion') return;
    while (!this.stopped() && !this.allFinished()) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }

  private allFinished(): boolean {
    this.storage.root.resetReadTxn();
    for (const { key, value } of this.storage.tasks.getRange({ start: this.finishedBelow })) {
      const status = (value as TaskRecord).status;
      if (status === 'enqueued' || status === 'processing') return false;
      this.finishedBelow = (key as number) + 1;
    }
    return true;
  }
}
