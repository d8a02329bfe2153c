// Cluster mode's write path (main thread): a validated task goes to the task log instead of this
// node's scheduler; the 202 is answered once JetStream acknowledged it (replicated on a majority of
// the NATS servers) and, for read-your-writes, once this node applied it (bounded wait). The task's
// uid is its sequence - 1 on every node (scheduler/state-machine.ts enqueueFromLog).
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SkeinError } from '../errors/index.js';
import type { TaskSummary } from '../front/threads/scheduler-client.js';
import type { TaskContent } from '../tasks/task-record.js';
import { nowRfc3339 } from '../tasks/timestamps.js';
import type { LogFollower } from './log-follower.js';
import { encodeEnvelope, type TaskEnvelope } from './task-envelope.js';
import { INLINE_PAYLOAD_LIMIT, type TaskLog } from './task-log.js';
import type { PayloadLedger } from './payload-ledger.js';

/** How long a write waits for this node to apply it before answering anyway (it is durable in the log). */
const LOCAL_APPLY_WAIT_MS = 10_000;

export class ClusterWrites implements PayloadOwner {
  constructor(
    private readonly taskLog: TaskLog,
    private readonly follower: LogFollower,
    private readonly updateFilesDir: string,
    private readonly nodeName: string,
    /** A snapshotCreation this node published was applied here as task `uid` (its archive is then uploaded). */
    private readonly onSnapshotTask: (uid: number) => void = () => {},
    /** Payloads this node put in the Object Store, kept in the data folder (payload-ledger.ts): deleted once compaction purged their task. */
    private readonly payloads: PayloadLedger,
  ) {}

  async releasePayloadsBelow(firstSeq: number): Promise<void> {
    const names = this.payloads.below(firstSeq);
    for (const name of names) await this.taskLog.deletePayload(name).catch((cause) => {
      if (!/not found/i.test((cause as Error).message)) throw cause;
    });
    await this.payloads.remove(names);
  }

  async enqueue(content: TaskContent): Promise<TaskSummary> {
    const msgID = `${this.nodeName}.${randomUUID()}`;
    let inline: Uint8Array | null = null;
    let envelope: TaskEnvelope = { v: 1, content, enqueuedAt: nowRfc3339(), node: this.nodeName, payload: 'none' };
    let updateFile: string | null = null;
    let seq: number;
    try {
      if (content.type === 'documentAdditionOrUpdate') {
        updateFile = join(this.updateFilesDir, content.updateFile);
        const bytes = await readFile(updateFile);
        const { updateFile: _local, ...shared } = content;
        envelope = { ...envelope, content: shared as TaskContent, payloadBytes: bytes.length };
        if (bytes.length > INLINE_PAYLOAD_LIMIT) {
          await this.payloads.putting(msgID);
          await this.taskLog.putPayload(msgID, bytes);
          envelope = { ...envelope, payload: 'object', object: msgID };
        } else {
          inline = bytes;
          envelope = { ...envelope, payload: 'inline' };
        }
      }
      seq = await this.taskLog.publish(encodeEnvelope(envelope, inline), msgID);
      if (envelope.payload === 'object') await this.payloads.published(msgID, seq);
    } catch (cause) {
      // The ack may have been lost: the payload is bounded by the stream's end (released once purged past it).
      if (envelope.payload === 'object') {
        void this.taskLog.streamStateRetried().then(({ lastSeq }) => this.payloads.boundUnacknowledged(lastSeq, msgID), () => {});
      }
      throw new SkeinError('internal', `The task log did not acknowledge the task: ${(cause as Error).message}.`);
    } finally {
      // Every node, this one included, writes its own copy from the log.
      if (updateFile) await rm(updateFile, { force: true }).catch(() => {});
    }
    const applied = await this.follower.whenApplied(seq, LOCAL_APPLY_WAIT_MS);
    if (applied && content.type === 'snapshotCreation') this.onSnapshotTask(seq - 1);
    return {
      taskUid: seq - 1, indexUid: 'indexUid' in content ? content.indexUid : null,
      status: 'enqueued', type: content.type, enqueuedAt: envelope.enqueuedAt,
    };
  }
}

export interface PayloadOwner {
  /** The log now starts at `firstSeq`: payloads of the tasks before it are read by nobody (a new node joins from a snapshot). */
  releasePayloadsBelow(firstSeq: number): Promise<void>;
}
