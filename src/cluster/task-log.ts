// The cluster's task log (main thread): the connection to NATS, the JetStream stream every node applies
// in order, and the Object Store that holds payloads too large for a message. Publishing retries with
// the same message id until JetStream acknowledges (deduplication makes the retry safe inside the
// stream's duplicate_window), so a stream leader's death (publishes fail ~4-9 s here) delays a write,
// never doubles it.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';

export const STREAM = 'skein-tasks';
export const SUBJECT = 'skein.tasks';
export const PAYLOAD_BUCKET = 'skein-payloads';
/** Each node's last applied sequence, one message per node kept (compaction waits for the slowest). */
export const PROGRESS_STREAM = 'skein-progress';
const PROGRESS_SUBJECT = 'skein.progress';
/** Messages above this go through the Object Store (max_payload is 1 MiB by default; headers need room). */
export const INLINE_PAYLOAD_LIMIT = 900 * 1024;
/** How long a write keeps retrying before it answers an error (a NATS majority lost for longer). */
const PUBLISH_DEADLINE_MS = 60_000;
const START_DEADLINE_MS = 60_000;

export interface TaskLogOptions {
  urls: string[];
  nodeName: string;
  replicas: number;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
}

export class TaskLog {
  private payloadStore: ObjectStore | null = null;
  private progressReady = false;
  private closed = false;

  private constructor(
    readonly connection: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    private readonly options: TaskLogOptions,
  ) {}

  /** Connects (retrying until JetStream answers: a fresh cluster elects its meta leader first) and makes sure the stream exists. */
  static async open(options: TaskLogOptions): Promise<TaskLog> {
    const connection = await connect({
      servers: options.urls, name: options.nodeName,
      maxReconnectAttempts: -1, reconnectTimeWait: 250, waitOnFirstConnect: true, timeout: 5000,
    });
    try {
      const deadline = Date.now() + START_DEADLINE_MS;
      const jsm = await retryUntil(deadline, () => jetstreamManager(connection, { timeout: 2000 }));
      const log = new TaskLog(connection, jetstream(connection, { timeout: 5000 }), jsm, options);
      await retryUntil(deadline, () => log.ensureStream());
      return log;
    } catch (cause) {
      await connection.close().catch(() => {});
      throw cause;
    }
  }

  /**
   * No limits (discard: old with limits would silently drop tasks), `discard: new` should limits be
   * added by an operator; adding an identical stream is a no-op, so every node may try.
   */
  private async ensureStream(): Promise<void> {
    try {
      await this.jsm.streams.info(STREAM);
      return;
    } catch {
      // absent: created below
    }
    await this.jsm.streams.add({
      name: STREAM, subjects: [SUBJECT], num_replicas: this.options.replicas,
      discard: 'new' as never, duplicate_window: 2 * 60 * 1_000_000_000,
    });
  }

  private async ensureProgressStream(): Promise<void> {
    try {
      await this.jsm.streams.info(PROGRESS_STREAM);
    } catch {
      await this.jsm.streams.add({ name: PROGRESS_STREAM, subjects: [`${PROGRESS_SUBJECT}.*`], num_replicas: this.options.replicas, max_msgs_per_subject: 1 });
    }
  }

  /** This node applied the log up to `seq` (compaction never purges what a known node still needs). */
  async reportProgress(seq: number): Promise<void> {
    if (!this.progressReady) {
      await this.ensureProgressStream();
      this.progressReady = true;
    }
    await this.js.publish(`${PROGRESS_SUBJECT}.${subjectToken(this.options.nodeName)}`, new TextEncoder().encode(JSON.stringify({ seq })), { timeout: 2000 });
  }

  /** The last applied sequence of every node that ever reported (a node gone for good is removed with forgetNode: DELETE /cluster/nodes/{name}). */
  async nodesProgress(): Promise<Map<string, number>> {
    const info = await this.jsm.streams.info(PROGRESS_STREAM, { subjects_filter: '>' });
    const progress = new Map<string, number>();
    for (const subject of Object.keys(info.state.subjects ?? {})) {
      const message = await this.jsm.streams.getMessage(PROGRESS_STREAM, { last_by_subj: subject });
      if (message) progress.set(subject.slice(PROGRESS_SUBJECT.length + 1), (message.json() as { seq: number }).seq);
    }
    return progress;
  }

  /** Forgets a node gone for good: its progress no longer holds compaction back. False: it never reported. */
  async forgetNode(name: string): Promise<boolean> {
    const subject = `${PROGRESS_SUBJECT}.${subjectToken(name)}`;
    const info = await this.jsm.streams.info(PROGRESS_STREAM, { subjects_filter: subject });
    if (!info.state.subjects?.[subject]) return false;
    await this.jsm.streams.purge(PROGRESS_STREAM, { filter: subject });
    return true;
  }

  /** Removes the task log's messages below `seq`. */
  async purgeBelow(seq: number): Promise<void> {
    await this.jsm.streams.purge(STREAM, { seq });
  }

  async objectInfo(name: string): Promise<{ metadata?: Record<string, string> } | null> {
    return (await this.objects()).info(name);
  }

  private async objects(): Promise<ObjectStore> {
    this.payloadStore ??= await new Objm(this.connection).create(PAYLOAD_BUCKET, { replicas: this.options.replicas });
    return this.payloadStore;
  }

  async putPayload(name: string, bytes: Uint8Array): Promise<void> {
    await retryUntil(Date.now() + PUBLISH_DEADLINE_MS, async () => {
      await (await this.objects()).putBlob({ name }, bytes);
    }, () => this.closed);
  }

  /** A file into a named object of the payload store (snapshots), streamed in the store's chunks: memory stays bounded. */
  async putObjectFile(name: string, path: string, metadata: Record<string, string> = {}): Promise<void> {
    await retryUntil(Date.now() + PUBLISH_DEADLINE_MS, async () => {
      // A new stream per attempt: a failed one was consumed in part.
      await (await this.objects()).put({ name, metadata }, Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>);
    }, () => this.closed);
  }

  /**
   * A named object into the file at `path`, chunk by chunk through a pull consumer of at most 8 chunks
   * (~1 MiB) ahead, each written before more is asked for: the library's get() enqueues every chunk the
   * server pushes whatever the reader's pace. Size and SHA-256 digest checked; false when there is no
   * such object. Retried: on a young cluster the bucket's creation by several nodes at once can time out.
   */
  async getObjectToFile(name: string, path: string): Promise<boolean> {
    return retryUntil(Date.now() + START_DEADLINE_MS, async () => {
      const info = await (await this.objects()).info(name);
      if (info === null) return false;
      const hash = createHash('sha256');
      let received = 0;
      const file = await open(path, 'w');
      try {
        if (info.size > 0) {
          const consumer = await this.js.consumers.get(`OBJ_${PAYLOAD_BUCKET}`, { filter_subjects: `$O.${PAYLOAD_BUCKET}.C.${info.nuid}` });
          const messages = await consumer.consume({ max_messages: 8 });
          try {
            for await (const message of messages) {
              hash.update(message.data);
              await file.write(message.data);
              received += message.data.length;
              if (message.info.pending === 0) break;
            }
          } finally {
            messages.stop();
          }
        }
        await file.sync();
      } finally {
        await file.close();
      }
      const digest = hash.digest('base64url');
      const expected = info.digest.replace(/^SHA-256=/, '').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
      if (received !== info.size || digest !== expected) {
        throw new Error(`object ${name} read back as ${received} bytes (digest ${digest}), ${info.size} (${expected}) expected`);
      }
      return true;
    }, () => this.closed);
  }

  async deletePayload(name: string): Promise<void> {
    await (await this.objects()).delete(name);
  }

  async getPayload(name: string): Promise<Uint8Array> {
    const bytes = await (await this.objects()).getBlob(name);
    if (!bytes) throw new Error(`payload ${name} is missing from the payload store`);
    return bytes;
  }

  /** Publishes until acknowledged; resolves with the stream sequence (the same on a retry: deduplication). */
  async publish(frame: Uint8Array, msgID: string): Promise<number> {
    return this.publishTo(SUBJECT, frame, msgID);
  }

  /** `publish` on another stream's subject (config-log.ts). */
  async publishTo(subject: string, frame: Uint8Array, msgID: string): Promise<number> {
    const ack = await retryUntil(Date.now() + PUBLISH_DEADLINE_MS,
      () => this.js.publish(subject, frame, { msgID, timeout: 2000, retries: 1 }), () => this.closed);
    return ack.seq;
  }

  async streamStateRetried(): Promise<{ firstSeq: number; lastSeq: number }> {
    return retryUntil(Date.now() + START_DEADLINE_MS, () => this.streamState(), () => this.closed);
  }

  async streamState(): Promise<{ firstSeq: number; lastSeq: number }> {
    const info = await this.jsm.streams.info(STREAM);
    return { firstSeq: info.state.first_seq, lastSeq: info.state.last_seq };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connection.close().catch(() => {});
  }
}

async function retryUntil<T>(deadline: number, attempt: () => Promise<T>, stop: () => boolean = () => false): Promise<T> {
  let delay = 100;
  for (;;) {
    try {
      return await attempt();
    } catch (cause) {
      if (stop() || Date.now() + delay > deadline) throw cause;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(1000, delay * 2);
    }
  }
}

/** A node name as one subject token (no dots, spaces or wildcards). */
function subjectToken(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}
